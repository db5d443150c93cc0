// Which elements of a selection a mask hides (ASDF masks: a value, or a boolean array that
// broadcasts to the array), so that dump prints them as numpy prints masked arrays: `--`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

class MaskReader {
 public:
  /// The mask of an array of `shape` (`masking` from its storage; the mask array, if any, is
  /// found in `tree`). Throws Error(kData) when the mask array is missing or does not
  /// broadcast to `shape`.
  MaskReader(const model::Tree& tree, const model::Masking& masking, std::vector<int64_t> shape);

  /// One byte per element of `values` (the elements `block` selects, read in native order,
  /// in C order): 1 where the element is masked.
  std::vector<uint8_t> masked(const Hyperslab& block, const NDArray& values);

 private:
  std::vector<uint8_t> by_value(const NDArray& values) const;
  std::vector<uint8_t> by_array(const Hyperslab& block, uint64_t count);

  std::vector<int64_t> shape_;
  std::optional<model::Value> value_;
  std::shared_ptr<model::ArraySource> mask_;
  std::vector<int64_t> mask_shape_;
  std::optional<NDArray> whole_mask_;  // a mask smaller than its array, read once
};

}  // namespace dudley::cli
