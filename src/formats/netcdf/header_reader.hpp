// Reading a classic header of unknown size: a first piece of the file, then more until the
// header parses (a header of 1,000 variables is some 100 KB; most are a few KB).
#pragma once

#include <string>

#include "dudley/formats/netcdf/netcdf.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::netcdf {

/// Thrown by parse_header when the bytes given end before the header does but the file
/// goes on: the caller reads more and parses again.
struct NeedMore {};

/// The header of the file `source` reads (named `path` in errors).
Header read_header(const io::ByteSource& source, const std::string& path);

}  // namespace dudley::netcdf
