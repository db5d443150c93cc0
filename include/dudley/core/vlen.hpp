// Arrays of variable-length elements (DType::vlen: Zarr's string and bytes, HDF5's vlen) in
// memory: each element is a VLenElement pointing into a heap that the NDArray keeps alive,
// so views and native copies of the array stay valid as long as any of them lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "dudley/core/ndarray.hpp"

namespace dudley {

/// One element of a DType::vlen array in memory: `count` elements of the base type at
/// `data` (for UTF-8 text, `count` bytes).
struct VLenElement {
  const std::byte* data = nullptr;
  uint64_t count = 0;

  /// The element's bytes (count times the base type's size).
  std::string_view bytes(uint64_t base_size) const {
    return {reinterpret_cast<const char*>(data), static_cast<size_t>(count * base_size)};
  }
};
static_assert(sizeof(VLenElement) == 16, "DType::vlen elements are 16 bytes");

/// Builds an array of variable-length elements, item by item in C order: each item's bytes
/// are copied into one heap the finished array holds.
class VLenArrayBuilder {
 public:
  /// A builder for elements of `vlen_type` (a DType::vlen), expecting about `items` items.
  explicit VLenArrayBuilder(DType vlen_type, uint64_t items = 0);
  /// Appends the next element: `size` bytes (a whole number of base elements).
  void append(const void* bytes, uint64_t size);
  /// The items appended so far.
  uint64_t size() const { return spans_.size(); }
  /// The array of `shape`, whose element count must be size(). Error(kUsage) otherwise.
  NDArray finish(Shape shape);

 private:
  DType type_;
  std::vector<std::byte> heap_;
  std::vector<std::pair<uint64_t, uint64_t>> spans_;  // offset in heap_, bytes
};

/// The elements of the vlen array `a` (any strides) in C order. They point into the heap `a`
/// keeps: valid while `a`, or a view or copy of it, lives.
std::vector<VLenElement> vlen_elements(const NDArray& a);

}  // namespace dudley
