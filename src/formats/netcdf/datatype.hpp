// netCDF's external types as the model's: their sizes and their DTypes (big-endian, as
// classic files store them).
#pragma once

#include <cstdint>

#include "dudley/core/dtype.hpp"
#include "metadata.hpp"

namespace dudley::netcdf {

/// The bytes of one element of `type` (1, 2, 4 or 8).
uint64_t type_size(NcType type);

/// The model's type of `type` as stored (big-endian; char is ASCII text).
DType model_type(NcType type);

}  // namespace dudley::netcdf
