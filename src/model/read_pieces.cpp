#include "dudley/model/read_pieces.hpp"

#include <algorithm>

namespace dudley::model {

void for_each_piece(const std::vector<int64_t>& shape, uint64_t element_size, const ReadUnit& unit,
                    uint64_t max_bytes, const std::function<bool(const Piece&)>& visit) {
  const size_t rank = shape.size();
  if (rank == 0) {
    visit({Hyperslab::all(shape), 0, element_size});
    return;
  }
  for (int64_t n : shape) {
    if (n == 0) return;
  }
  // inner[d]: the bytes one step along dimension d spans. The array's byte size was checked
  // when it was described, so these products fit.
  std::vector<uint64_t> inner(rank);
  inner[rank - 1] = element_size;
  for (size_t d = rank - 1; d-- > 0;) inner[d] = inner[d + 1] * static_cast<uint64_t>(shape[d + 1]);
  // Split along the first dimension whose steps fit the budget; before it, one index each.
  size_t k = 0;
  while (k + 1 < rank && inner[k] > max_bytes) ++k;
  auto per = static_cast<int64_t>(
      std::min<uint64_t>(static_cast<uint64_t>(shape[k]),
                         std::max<uint64_t>(1, max_bytes / std::max<uint64_t>(inner[k], 1))));
  if (k < unit.shape.size() && unit.shape[k] > 0 && per > unit.shape[k]) {
    per -= per % unit.shape[k];
  }
  Piece piece;
  piece.slab.start.assign(rank, 0);
  piece.slab.count = shape;
  for (size_t d = 0; d < k; ++d) piece.slab.count[d] = 1;
  for (;;) {
    uint64_t base = 0;
    for (size_t d = 0; d < k; ++d) base += static_cast<uint64_t>(piece.slab.start[d]) * inner[d];
    for (int64_t at = 0; at < shape[k]; at += per) {
      piece.slab.start[k] = at;
      piece.slab.count[k] = std::min(per, shape[k] - at);
      piece.offset = base + static_cast<uint64_t>(at) * inner[k];
      piece.bytes = static_cast<uint64_t>(piece.slab.count[k]) * inner[k];
      if (!visit(piece)) return;
    }
    // The next index of the dimensions before k (an odometer, fastest last).
    size_t d = k;
    while (d > 0) {
      --d;
      if (++piece.slab.start[d] < shape[d]) break;
      piece.slab.start[d] = 0;
      if (d == 0) return;
    }
    if (k == 0) return;
  }
}

}  // namespace dudley::model
