// The Avro format's registration with the format registry.
#pragma once

#include "dudley/format.hpp"

namespace dudley::avro {

/// Adds the "avro" format: Object Container Files (extension .avro, magic "Obj\x01").
void register_avro_format(FormatRegistry& registry);

}  // namespace dudley::avro
