// The .npy header: what it says, parsed from its Python dict literal and made for a type and
// shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"

namespace dudley::npy {

/// What a header says.
struct Header {
  DType dtype;  ///< with its byte order; structured descrs are compounds
  std::vector<int64_t> shape;
  bool fortran_order = false;
  uint64_t data_offset = 0;  ///< where the data starts (the header's end)
};

/// Parses the header at the start of `bytes` (at least the whole header). Throws
/// Error(kData) naming `path` and the byte offset for a header that is not one: no magic,
/// a length beyond the file, a dict that does not parse, a descr numpy would pickle ('O').
Header parse_header(std::string_view bytes, const std::string& path);

/// A header for `dtype` and `shape` (version 1.0, or 2.0 when it needs more than 65535
/// bytes), padded so that the data starts at a multiple of 64. Error(kType) for types .npy
/// has no descr for (vlen, references, enums: enums are written as their base).
std::string make_header(const DType& dtype, const std::vector<int64_t>& shape);

}  // namespace dudley::npy
