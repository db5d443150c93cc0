// Writing an array whose source has missing chunks (StoredChunks): the chunks of the
// output's own grid that hold stored data, so that a writer visits those and leaves the
// rest to the fill value, and a 10^12-chunk array of no stored chunk costs nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "dudley/core/hyperslab.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::model {

/// The chunks of a grid of `chunk` over an array of `shape` that hold an element of a
/// chunk `stored` lists (whose grid may differ), as StoredChunks of that grid: positions in
/// C order, each once, the fill value carried over. Work and memory follow the stored
/// chunks, never the grid's extent.
StoredChunks chunks_touching(const StoredChunks& stored, const std::vector<int64_t>& shape,
                             const std::vector<int64_t>& chunk);

/// The elements of the chunk at grid position `index` (chunk.size() numbers at `position`)
/// of an array of `shape`, cut at its edges.
Hyperslab chunk_box(const int64_t* position, const std::vector<int64_t>& chunk,
                    const std::vector<int64_t>& shape);

/// Whether a writer may leave out every chunk `stored` does not list: the output reads
/// missing chunks as `output_fill` (one element, native order), which is the source's.
bool may_skip_missing(const StoredChunks& stored, const std::vector<std::byte>& output_fill);

}  // namespace dudley::model
