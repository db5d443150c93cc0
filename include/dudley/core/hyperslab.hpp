// A rectangular selection of array elements, with numpy-style text ("[0:2, :, 5]").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace dudley {

/// A selection per dimension: elements start, start + stride, ... (count of them).
struct Hyperslab {
  std::vector<int64_t> start;
  std::vector<int64_t> count;
  std::vector<int64_t> stride;  ///< empty: all 1

  /// Parses numpy-style text "[0:2, :, 5, 1:10:3]" for an array of `shape`. A single index
  /// keeps its dimension with count 1. Throws Error(kUsage) on bad text or out-of-range.
  static Hyperslab parse(std::string_view text, const std::vector<int64_t>& shape);
};

}  // namespace dudley
