// The Zarr format's registration with the format registry.
#pragma once

#include "dudley/format.hpp"

namespace dudley::zarr {

/// Adds the "zarr" format: a directory store (extension .zarr) recognised by its zarr.json.
void register_zarr_format(FormatRegistry& registry);

}  // namespace dudley::zarr
