#include "dudley/model/read_pieces.hpp"

#include <algorithm>

namespace dudley::model {

void for_each_piece(const Hyperslab& selection, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit,
                    size_t whole_dims) {
  const std::vector<int64_t>& counts = selection.count;
  const size_t rank = counts.size();
  Piece piece;
  piece.slab.start = selection.start;
  piece.slab.count = counts;
  piece.slab.stride = selection.stride;
  for (int64_t n : counts) {
    if (n == 0) return;
  }
  if (rank <= whole_dims) {  // 0-d, or nothing that may be split
    piece.bytes = element_size;
    for (int64_t n : counts) piece.bytes *= static_cast<uint64_t>(n);
    visit(piece);
    return;
  }
  // inner[d]: the result's bytes one step along dimension d spans. The array's byte size was
  // checked when it was described, and a selection holds no more, so these products fit.
  std::vector<uint64_t> inner(rank);
  inner[rank - 1] = element_size;
  for (size_t d = rank - 1; d-- > 0;) {
    inner[d] = inner[d + 1] * static_cast<uint64_t>(counts[d + 1]);
  }
  // Split along the first dimension whose steps fit the budget; before it, one index each.
  const size_t lowest = rank - 1 - whole_dims;
  size_t k = 0;
  while (k < lowest && inner[k] > max_bytes) ++k;
  auto per = static_cast<int64_t>(
      std::min<uint64_t>(static_cast<uint64_t>(counts[k]),
                         std::max<uint64_t>(1, max_bytes / std::max<uint64_t>(inner[k], 1))));
  if (k < unit.shape.size() && unit.shape[k] > 0 && per > unit.shape[k] && selection.step(k) == 1) {
    per -= per % unit.shape[k];
  }
  for (size_t d = 0; d < k; ++d) piece.slab.count[d] = 1;
  std::vector<int64_t> index(k, 0);  // of the dimensions before k, in the result
  for (;;) {
    uint64_t base = 0;
    for (size_t d = 0; d < k; ++d) {
      piece.slab.start[d] = selection.start[d] + index[d] * selection.step(d);
      base += static_cast<uint64_t>(index[d]) * inner[d];
    }
    for (int64_t at = 0; at < counts[k]; at += per) {
      piece.slab.start[k] = selection.start[k] + at * selection.step(k);
      piece.slab.count[k] = std::min(per, counts[k] - at);
      piece.offset = base + static_cast<uint64_t>(at) * inner[k];
      piece.bytes = static_cast<uint64_t>(piece.slab.count[k]) * inner[k];
      if (!visit(piece)) return;
    }
    // The next index of the dimensions before k (an odometer, fastest last).
    size_t d = k;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < counts[d]) break;
      index[d] = 0;
    }
  }
}

void for_each_piece(const std::vector<int64_t>& shape, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit) {
  for_each_piece(Hyperslab::all(shape), element_size, unit, max_bytes, visit);
}

}  // namespace dudley::model
