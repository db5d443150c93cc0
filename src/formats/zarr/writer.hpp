// How the Zarr writer chooses chunk shapes (tested on their own).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dudley/formats/zarr.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::zarr {

/// The inner chunk shape write_zarr chooses in shards of `shard` elements: near `target`
/// bytes as choose_chunk_shape, each extent then lowered to a divisor of the shard's.
std::vector<int64_t> choose_inner_chunk_shape(const std::vector<int64_t>& shard,
                                              uint64_t element_size, uint64_t target);

/// The chunk shape write_zarr chooses for an array of `shape` and `element_size`-byte
/// elements: the whole array when it is at most `target` bytes, else the slowest
/// dimensions halved (rounded up) until a chunk is; never an extent of 0.
std::vector<int64_t> choose_chunk_shape(const std::vector<int64_t>& shape, uint64_t element_size,
                                        uint64_t target);

}  // namespace dudley::zarr
