// Shape: array dimensions, slowest varying first (C order), and helpers on them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace dudley {

/// Dimensions of an array, slowest first. Every dimension is >= 0; rank 0 is a scalar.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  /// Throws Error(kUsage) if a dimension is negative.
  explicit Shape(std::vector<int64_t> dims);

  size_t rank() const noexcept { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const noexcept { return dims_; }
  bool empty_data() const noexcept;  ///< True when some dimension is 0.

  /// Number of elements; std::nullopt when it does not fit in 64 bits.
  std::optional<uint64_t> element_count() const noexcept;
  /// element_count() * element_size; std::nullopt on 64-bit overflow.
  std::optional<uint64_t> byte_size(uint64_t element_size) const noexcept;
  /// C-order strides in bytes for elements of `element_size` bytes.
  std::vector<int64_t> c_strides(uint64_t element_size) const;

  /// "[3, 2]"; "[]" for a scalar.
  std::string to_string() const;

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }

 private:
  std::vector<int64_t> dims_;
  uint64_t count_ = 1;            ///< the product of dims_ (0 with a zero among them)
  bool count_overflows_ = false;  ///< the product does not fit in 64 bits
};

/// a * b, or nullopt on unsigned 64-bit overflow.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) noexcept;
/// a + b, or nullopt on unsigned 64-bit overflow.
std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) noexcept;

}  // namespace dudley
