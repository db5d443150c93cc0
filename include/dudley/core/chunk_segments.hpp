// A selection cut by a chunk grid, one dimension at a time: the runs of selected positions
// that fall in one chunk each (a step of either sign keeps each chunk's positions together);
// and the walk over a box of grid positions that every reader and writer of chunks makes
// (Zarr's chunks and shards, HDF5's chunks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dudley {

/// The selected elements of one dimension that fall in one chunk: chunk `chunk`, selection
/// positions [k0, k1).
struct Segment {
  int64_t chunk = 0;
  int64_t k0 = 0, k1 = 0;
};

/// The segments of the selection start, start + step, ... (count of them) in chunks of
/// `unit` elements, in selection order.
inline std::vector<Segment> segments_of(int64_t start, int64_t count, int64_t step, int64_t unit) {
  std::vector<Segment> out;
  // One element lies in one chunk whatever the step, which may then be any int64, even
  // -2^63 (`a[::-2**63]`): below, a step is negated only where it is less than the extent.
  if (count == 1) return {{start / unit, 0, 1}};
  for (int64_t k = 0; k < count;) {
    const int64_t p = start + k * step;
    const int64_t c = p / unit;
    // Selection positions left in this chunk, going the selection's way.
    const int64_t room = step > 0 ? ((c + 1) * unit - 1 - p) / step : (p - c * unit) / -step;
    const int64_t end = std::min(count, k + room + 1);
    out.push_back({c, k, end});
    k = end;
  }
  return out;
}

/// Steps `at` to the next position of the box [first, end) in C order (the last dimension
/// fastest). False after the last position, `at` then back at `first`; a 0-d box has one.
inline bool next_position(std::vector<int64_t>& at, const std::vector<int64_t>& first,
                          const std::vector<int64_t>& end) {
  for (size_t d = at.size(); d-- > 0;) {
    if (++at[d] < end[d]) return true;
    at[d] = first[d];
  }
  return false;
}

}  // namespace dudley
