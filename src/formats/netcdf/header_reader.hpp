// Reading a classic header of unknown size: parse_header asks for more of the file.
#pragma once

#include <string>

#include "dudley/formats/netcdf/netcdf.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::netcdf {

/// Thrown by parse_header when the bytes given end before the header does but the file
/// goes on: the caller reads more and parses again.
struct NeedMore {};

}  // namespace dudley::netcdf
