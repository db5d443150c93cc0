// A rectangular selection of array elements, with numpy's indexing text ("[0:2, ..., ::-1]").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace dudley {

/// A selection per dimension: elements start, start + stride, ... (count of them). A
/// negative stride walks the dimension backwards, as numpy's `x[::-1]`.
struct Hyperslab {
  std::vector<int64_t> start;
  std::vector<int64_t> count;
  std::vector<int64_t> stride;  ///< empty: all 1; never 0
  /// Dimensions chosen by a single integer index, which numpy removes from the result
  /// (`x[2, :]` of a 2-D array is 1-D). Empty: none. A reader's result has shape
  /// result_shape(); the elements are the same either way.
  std::vector<bool> dropped = {};

  /// Parses numpy basic-indexing text for an array of `shape`: integers (negative from the
  /// end; an integer removes its dimension), slices `start:stop:step` (any part may be
  /// left out, a negative step reverses), at most one `...` standing for the dimensions
  /// not named, and dimensions left out at the end mean `:`. `[]` selects everything.
  /// Throws Error(kUsage) on bad text, a step of 0, an index out of range, or more indices
  /// than dimensions.
  static Hyperslab parse(std::string_view text, const std::vector<int64_t>& shape);

  /// The whole of an array of `shape`.
  static Hyperslab all(const std::vector<int64_t>& shape);

  /// The step of dimension `d` (1 when `stride` is empty).
  int64_t step(size_t d) const { return stride.empty() ? 1 : stride[d]; }

  /// The shape of what the selection reads: `count` without the dropped dimensions.
  std::vector<int64_t> result_shape() const;

  /// Throws Error(kUsage) unless every selected element lies inside an array of `shape`
  /// (start and last element in range, stride not 0, counts not negative).
  void check_fits(const std::vector<int64_t>& shape) const;
};

/// A selection's place in its array's C-ordered bytes when it is one run of consecutive
/// elements: unit steps, one element along each dimension before some dimension k, whole
/// dimensions after it (what a streaming reader asks for, and what one pread serves).
struct ByteRun {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// The run `slab` selects in an array of `shape` and `element_size`-byte elements, or
/// nullopt when the selection is not one run. The slab must fit the shape (check_fits).
std::optional<ByteRun> contiguous_run(const std::vector<int64_t>& shape, uint64_t element_size,
                                      const Hyperslab& slab);

}  // namespace dudley
