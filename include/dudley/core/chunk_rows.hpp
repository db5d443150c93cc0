// One chunk's share of a selection, row by row: where each row of selected elements starts in
// the chunk and where it lands in the result. Every reader of chunks (Zarr's, HDF5's) places
// decoded chunks this way, and reads uncompressed chunks of a sparse selection (a picture's
// every k-th row) row by row from the file rather than whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "dudley/core/chunk_segments.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"

namespace dudley {

/// The selected elements of one chunk: `task` holds, per dimension, the segment of the
/// selection `slab` that falls in the chunk (segments_of), and the chunk has `chunk` elements
/// per dimension, stored in C order.
struct ChunkRows {
  const std::vector<const Segment*>& task;
  const Hyperslab& slab;
  const std::vector<int64_t>& chunk;

  /// Elements per row: the last dimension's segment (1 for a 0-d array).
  int64_t length() const { return task.empty() ? 1 : task.back()->k1 - task.back()->k0; }

  /// Elements between one element of a row and the next, in the chunk (any sign).
  int64_t step() const { return task.empty() ? 1 : slab.step(task.size() - 1); }

  /// Calls `visit(from, to)` for every row, dimensions before the last in C order: `from`
  /// the chunk-local element index of the row's first selected element, `to` the index in
  /// the selection's result (C order, `slab.count`) where the row starts; the row's elements
  /// are `step()` apart in the chunk and consecutive in the result.
  template <class Visit>
  void each(Visit&& visit) const {
    const size_t rank = task.size();
    if (rank == 0) {
      visit(uint64_t{0}, uint64_t{0});
      return;
    }
    std::vector<uint64_t> chunk_stride(rank, 1), out_stride(rank, 1);
    for (size_t d = rank; d-- > 1;) {
      chunk_stride[d - 1] = chunk_stride[d] * static_cast<uint64_t>(chunk[d]);
      out_stride[d - 1] = out_stride[d] * static_cast<uint64_t>(slab.count[d]);
    }
    std::vector<int64_t> k(rank);
    for (size_t d = 0; d < rank; ++d) k[d] = task[d]->k0;
    for (;;) {
      uint64_t from = 0, to = 0;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t p = slab.start[d] + k[d] * slab.step(d) - task[d]->chunk * chunk[d];
        from += static_cast<uint64_t>(p) * chunk_stride[d];
        to += static_cast<uint64_t>(k[d]) * out_stride[d];
      }
      visit(from, to);
      size_t d = rank - 1;  // the next position of the dimensions before the last
      for (;;) {
        if (d == 0) return;
        --d;
        if (++k[d] < task[d]->k1) break;
        k[d] = task[d]->k0;
      }
    }
  }

  /// Copies one row of `element`-byte elements from `from` (its first element; the others
  /// `step()` elements apart) to `to`, consecutive.
  void copy_row(std::byte* to, const std::byte* from, uint64_t element) const {
    if (element == 0) return;  // elements of no bytes: nothing to copy (and maybe no buffer)
    const int64_t n = length(), s = step();
    if (s == 1 || n == 1) {  // one element: any step (even -2^63) alike
      std::memcpy(to, from, static_cast<uint64_t>(n) * element);
      return;
    }
    const int64_t stride = s * static_cast<int64_t>(element);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(to + static_cast<uint64_t>(i) * element, from + i * stride, element);
    }
  }

  /// Places the selected elements of the decoded chunk `chunk` (C order, `element` bytes
  /// each), or copies of the one element `fill` where `chunk` is null (a chunk never
  /// written), at their places in `out`, the selection's result.
  void place(const std::byte* chunk, const std::byte* fill, uint64_t element, std::byte* out) const;

  /// Bytes of the chunk the rows span, first to last element of each row, summed: what
  /// reading them row by row reads.
  uint64_t spanned_bytes(uint64_t element) const;
};

/// Reads the selected elements of an uncompressed chunk (elements of `stored` type, in the
/// chunk's C order from byte `base` of its source) into `out` (the selection's result, native
/// byte order), row by row: `read(offset, length, into)` reads bytes of the source. Rows
/// whose spans lie near each other are read as one. For a selection that takes a small part
/// of each chunk (spanned_bytes well below the chunk's), where reading the chunk whole would
/// read every byte for a few.
void read_chunk_rows(const ChunkRows& rows, const DType& stored, uint64_t base, std::byte* out,
                     const std::function<void(uint64_t, uint64_t, std::byte*)>& read);

}  // namespace dudley
