// Where an HDF5 file stores a dataset's current extents: the dimension sizes in the
// dataspace message of its object header. A Dudley layout can then read each file's own
// extents as parameters (`n0 := <u8 @ 872`), so that one layout reads a family whose
// members differ in shape (dudley layout --family).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace dudley::hdf5 {

/// The file offsets of the extents of a dataset whose object header (version 1 or 2) starts
/// at `header_address` and whose first bytes are `header`: one offset per dimension, each
/// the start of a little-endian 8-byte size. Only the header's first chunk is searched, and
/// the sizes found there must equal `dims` (the extents libhdf5 gives): any other header
/// (a continuation, 4-byte lengths, damage) gives nullopt, never a guess.
std::optional<std::vector<uint64_t>> stored_extent_offsets(std::span<const std::byte> header,
                                                           uint64_t header_address,
                                                           const std::vector<int64_t>& dims);

}  // namespace dudley::hdf5
