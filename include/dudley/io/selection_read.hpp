// Reading a selection of an array stored as one C-ordered run of bytes in a source (a
// Dudley array, an uncompressed ASDF block): straight into the caller's memory.
#pragma once

#include <cstdint>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::io {

/// Reads the elements `slab` selects of an array of `shape` whose elements, of type
/// `stored`, lie in C order from `address` of `source`, into `out` (slab.result_shape(),
/// C order, native byte order). A selection that is one run of bytes is one read; other
/// selections read each row of the last dimensions they select whole, and close elements of
/// strided rows as one span. The slab must fit the shape (Hyperslab::check_fits). Throws
/// the source's errors (a range outside it, an I/O error).
void read_selection(const ByteSource& source, uint64_t address, const DType& stored,
                    const std::vector<int64_t>& shape, const Hyperslab& slab, void* out);

}  // namespace dudley::io
