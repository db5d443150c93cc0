// NDArray: a typed n-dimensional view on bytes, owning them or borrowing them from a caller
// (a memory map, a user buffer). Large data is never copied when a view will do.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/shape.hpp"

namespace dudley {

class NDArray {
 public:
  /// An empty scalar of one byte.
  NDArray();
  /// Allocates zeroed, C-contiguous storage for `shape` elements of `dtype`.
  /// Throws Error(kLimit) when the byte size overflows 64 bits.
  NDArray(DType dtype, Shape shape);

  /// Wraps memory the caller owns. `strides` in bytes (empty: C-contiguous). `keep_alive`
  /// is held for the array's lifetime (pass the owner of a memory map, for instance).
  static NDArray borrow(void* data, DType dtype, Shape shape, std::vector<int64_t> strides = {},
                        std::shared_ptr<void> keep_alive = {});

  const DType& dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  const std::vector<int64_t>& strides() const noexcept { return strides_; }
  const void* data() const noexcept { return data_; }
  void* mutable_data() noexcept { return data_; }
  /// True when the array allocated its storage itself.
  bool owns_data() const noexcept { return owns_; }
  uint64_t element_count() const noexcept { return *shape_.element_count(); }
  /// Bytes the elements occupy when packed.
  uint64_t byte_size() const noexcept { return element_count() * dtype_.size(); }
  bool is_c_contiguous() const noexcept;

  /// Address of the element at `index` (one entry per dimension). Throws Error(kUsage) when
  /// the index has the wrong rank or is out of bounds.
  const void* element_ptr(const std::vector<int64_t>& index) const;

  /// Reads one element as T, which must have the element's size; no byte-order conversion.
  template <typename T>
  T get(const std::vector<int64_t>& index) const {
    if (sizeof(T) != dtype_.size()) {
      throw Error(ErrorCategory::kUsage, "element size does not match the requested C++ type");
    }
    T value;
    std::memcpy(&value, element_ptr(index), sizeof(T));
    return value;
  }

  /// Calls `visit(element)` for each element in C order (slowest dimension first).
  void for_each_element(const std::function<void(const void*)>& visit) const;

  /// A packed C-contiguous copy in native byte order (or unchanged order for types without
  /// one). The copy owns its data.
  NDArray to_native() const;
  /// A packed C-contiguous copy whose elements are of `stored` (this array's type in another
  /// byte order, as a file stores it): the bytes swapped where the orders differ.
  NDArray in_order_of(const DType& stored) const;
  /// Copies the elements packed in C order and native byte order into `out` (at least
  /// byte_size() bytes): to_native() into the caller's memory.
  void copy_native_into(void* out) const;
  /// Converts the elements to native byte order in place (the array must be writable).
  void to_native_in_place();

  /// The field `name` of a struct array as its own packed array (numpy's `a['name']`, as a
  /// copy): shape this array's shape followed by the field's own shape. Throws
  /// Error(kUsage) when the array is not a struct array or has no such field.
  NDArray field(std::string_view name) const;

  /// The elements `slab` selects, as a view sharing this array's memory (no copy): shape
  /// slab.result_shape(), strides scaled by the slab's steps (negative for reversed
  /// dimensions). Throws Error(kUsage) when the slab does not fit the array.
  NDArray select(const Hyperslab& slab) const;

  /// Float16 (or complex pair of float16) widened to float32 (complex64), native order.
  /// Throws Error(kType) for other types.
  NDArray widen_float16() const;

 private:
  DType dtype_;
  Shape shape_;
  std::vector<int64_t> strides_;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
  bool owns_ = false;
};

}  // namespace dudley
