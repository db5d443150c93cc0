// The source of an array stored as one C-ordered run of bytes of a file, uncompressed (an
// .npy file's data): reads go straight from the file into the caller's memory.
#pragma once

#include <memory>
#include <vector>

#include "dudley/io/byte_source.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::model {

/// A source reading the array of `shape` whose elements, of type `stored` (its byte order
/// included), lie in C order from `address` of `bytes`. The caller has checked that they lie
/// inside it.
std::shared_ptr<ArraySource> contiguous_source(std::shared_ptr<const io::ByteSource> bytes,
                                               uint64_t address, DType stored,
                                               std::vector<int64_t> shape);

}  // namespace dudley::model
