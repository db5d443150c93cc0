#include "dudley/model/sparse_chunks.hpp"

#include <algorithm>

namespace dudley::model {

Hyperslab chunk_box(const int64_t* position, const std::vector<int64_t>& chunk,
                    const std::vector<int64_t>& shape) {
  Hyperslab box;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t start = std::min(position[d] * chunk[d], shape[d]);
    box.start.push_back(start);
    box.count.push_back(std::min(chunk[d], shape[d] - start));
  }
  return box;
}

StoredChunks chunks_touching(const StoredChunks& stored, const std::vector<int64_t>& shape,
                             const std::vector<int64_t>& chunk) {
  const size_t rank = shape.size();
  StoredChunks out;
  out.chunk_shape = chunk;
  out.fill = stored.fill;
  if (rank == 0) {
    out.chunks = stored.chunks > 0 ? 1 : 0;
    return out;
  }
  // The output grid's extent along each dimension, and a chunk's linear index in it (the
  // grid has at most as many chunks as the array elements: it fits in 64 bits).
  std::vector<uint64_t> grid(rank), stride(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    grid[d] = chunk[d] > 0 ? static_cast<uint64_t>((shape[d] + chunk[d] - 1) / chunk[d]) : 0;
  }
  for (size_t d = rank - 1; d-- > 0;) stride[d] = stride[d + 1] * grid[d + 1];
  std::vector<uint64_t> linear;
  std::vector<uint64_t> first(rank), last(rank), at(rank);
  for (uint64_t k = 0; k < stored.chunks; ++k) {
    const Hyperslab box = chunk_box(&stored.positions[k * rank], stored.chunk_shape, shape);
    bool empty = false;
    for (size_t d = 0; d < rank; ++d) {
      empty = empty || box.count[d] == 0;
      if (empty) break;
      first[d] = static_cast<uint64_t>(box.start[d] / chunk[d]);
      last[d] = static_cast<uint64_t>((box.start[d] + box.count[d] - 1) / chunk[d]);
    }
    if (empty) continue;
    at = first;
    for (;;) {
      uint64_t index = 0;
      for (size_t d = 0; d < rank; ++d) index += at[d] * stride[d];
      linear.push_back(index);
      size_t d = rank;
      while (d-- > 0) {
        if (++at[d] <= last[d]) break;
        at[d] = first[d];
      }
      if (d == static_cast<size_t>(-1)) break;
    }
  }
  std::sort(linear.begin(), linear.end());
  linear.erase(std::unique(linear.begin(), linear.end()), linear.end());
  out.chunks = linear.size();
  out.positions.reserve(linear.size() * rank);
  for (uint64_t index : linear) {
    for (size_t d = 0; d < rank; ++d) {
      out.positions.push_back(static_cast<int64_t>(index / stride[d]));
      index %= stride[d];
    }
  }
  return out;
}

bool may_skip_missing(const StoredChunks& stored, const std::vector<std::byte>& output_fill) {
  return !stored.fill.empty() && stored.fill == output_fill;
}

}  // namespace dudley::model
