// The ASDF format's registration with the format registry.
#pragma once

#include "dudley/format.hpp"

namespace dudley::asdf {

/// Adds the "asdf" format (extension .asdf, signature "#ASDF ").
void register_asdf_format(FormatRegistry& registry);

}  // namespace dudley::asdf
