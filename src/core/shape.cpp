#include "dudley/core/shape.hpp"

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley {

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) noexcept {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) noexcept {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}

Shape::Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {
  // The count once, here: arrays ask for it many times (sizes, contiguity, copies).
  bool overflow = false;
  for (int64_t d : dims_) {
    if (d < 0)
      throw Error(ErrorCategory::kUsage, fmt::format("negative dimension {} in a shape", d));
    overflow |= __builtin_mul_overflow(count_, static_cast<uint64_t>(d), &count_);
  }
  // A zero anywhere makes the count 0, even after a product that overflowed.
  if (empty_data()) {
    count_ = 0;
  } else if (overflow) {
    count_overflows_ = true;
  }
}

bool Shape::empty_data() const noexcept {
  for (int64_t d : dims_)
    if (d == 0) return true;
  return false;
}

std::optional<uint64_t> Shape::element_count() const noexcept {
  if (count_overflows_) return std::nullopt;
  return count_;
}

std::optional<uint64_t> Shape::byte_size(uint64_t element_size) const noexcept {
  auto n = element_count();
  if (!n) return std::nullopt;
  return checked_mul(*n, element_size);
}

std::vector<int64_t> Shape::c_strides(uint64_t element_size) const {
  std::vector<int64_t> strides(dims_.size());
  int64_t stride = static_cast<int64_t>(element_size);
  for (size_t i = dims_.size(); i-- > 0;) {
    strides[i] = stride;
    // An array of no elements may have dimensions whose product overflows: its strides are
    // never used to address anything, so they saturate instead of wrapping.
    if (__builtin_mul_overflow(stride, dims_[i] == 0 ? 1 : dims_[i], &stride)) {
      stride = INT64_MAX;
    }
  }
  return strides;
}

std::string Shape::to_string() const {
  return fmt::format("[{}]", fmt::join(dims_, ", "));
}

}  // namespace dudley
