// Copying a rectangular box of elements between two C-ordered arrays: a chunk's part of the
// array into its buffer, an inner chunk out of its shard, a written region into a chunk, a
// block read into its place in an outer selection (model/outer_read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dudley {

/// One C-ordered array in memory and a corner in it: `Byte` is const for the source.
template <typename Byte>
struct BoxEnd {
  Byte* data;                          ///< the array's first element
  const std::vector<int64_t>& shape;   ///< its shape
  const std::vector<int64_t>& corner;  ///< the box's first element in it (empty: the origin)
};

/// Copies the box of `count` elements per dimension at `from.corner` of `from` to
/// `to.corner` of `to`, rows at a time; `element` bytes each. The box must lie inside both.
void copy_box(const BoxEnd<const std::byte>& from, const BoxEnd<std::byte>& to,
              const std::vector<int64_t>& count, uint64_t element);

/// Whether the `bytes` bytes at `data` are nothing but repeats of the `element`-byte `value`.
bool all_equal_to(const std::byte* data, uint64_t bytes, const std::byte* value, uint64_t element);

}  // namespace dudley
