#include "dudley/core/ndarray.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "dudley/core/big_memory.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/float16.hpp"

namespace dudley {

NDArray::NDArray() : NDArray(DType(), Shape()) {}

NDArray::NDArray(DType dtype, Shape shape) : dtype_(std::move(dtype)), shape_(std::move(shape)) {
  auto bytes = shape_.byte_size(dtype_.size());
  if (!bytes) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("array of shape {} and type {} is larger than 2^64 bytes",
                            shape_.to_string(), dtype_.to_string()));
  }
  strides_ = shape_.c_strides(dtype_.size());
  // Zeroed by the kernel as pages are first touched (no extra pass); huge pages when large.
  storage_ = allocate_zeroed(*bytes);
  data_ = storage_.get();
  owns_ = true;
}

NDArray NDArray::borrow(void* data, DType dtype, Shape shape, std::vector<int64_t> strides,
                        std::shared_ptr<void> keep_alive) {
  NDArray a;
  a.dtype_ = std::move(dtype);
  a.shape_ = std::move(shape);
  if (!a.shape_.element_count()) {
    throw Error(ErrorCategory::kLimit, "borrowed array has more than 2^64 elements");
  }
  if (strides.empty()) strides = a.shape_.c_strides(a.dtype_.size());
  if (strides.size() != a.shape_.rank()) {
    throw Error(ErrorCategory::kUsage, "strides and shape have different ranks");
  }
  a.strides_ = std::move(strides);
  a.storage_ = std::move(keep_alive);
  a.data_ = data;
  a.owns_ = false;
  return a;
}

bool NDArray::is_c_contiguous() const noexcept {
  // strides_ == shape_.c_strides(size) (saturating as it does), compared as they are made:
  // asked once per small array read, a vector allocated each time showed in profiles.
  if (strides_.size() != shape_.rank()) return shape_.empty_data();
  int64_t stride = static_cast<int64_t>(dtype_.size());
  for (size_t i = shape_.rank(); i-- > 0;) {
    if (strides_[i] != stride) return shape_.empty_data();
    if (__builtin_mul_overflow(stride, shape_[i] == 0 ? 1 : shape_[i], &stride)) {
      stride = INT64_MAX;
    }
  }
  return true;
}

const void* NDArray::element_ptr(const std::vector<int64_t>& index) const {
  if (index.size() != shape_.rank()) {
    throw Error(ErrorCategory::kUsage, fmt::format("index of rank {} into an array of rank {}",
                                                   index.size(), shape_.rank()));
  }
  const auto* p = static_cast<const unsigned char*>(data_);
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= shape_[i]) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("index {} is out of bounds for dimension {} of size {}", index[i], i,
                              shape_[i]));
    }
    p += index[i] * strides_[i];
  }
  return p;
}

void NDArray::for_each_element(const std::function<void(const void*)>& visit) const {
  const uint64_t n = element_count();
  if (n == 0) return;
  const size_t rank = shape_.rank();
  std::vector<int64_t> index(rank, 0);
  const auto* base = static_cast<const unsigned char*>(data_);
  for (uint64_t k = 0; k < n; ++k) {
    const unsigned char* p = base;
    for (size_t i = 0; i < rank; ++i) p += index[i] * strides_[i];
    visit(p);
    for (size_t i = rank; i-- > 0;) {  // odometer increment, fastest dimension last
      if (++index[i] < shape_[i]) break;
      index[i] = 0;
    }
  }
}

namespace {

// Elements that point into a heap another array keeps alive (DType::holds_vlen), copied:
// the copy keeps the heap too.
struct HeapCopy {
  std::shared_ptr<void> heap;
  std::vector<std::byte> elements;
};

}  // namespace

NDArray NDArray::to_native() const {
  if (dtype_.holds_vlen()) {
    auto copy = std::make_shared<HeapCopy>();
    copy->heap = storage_;
    copy->elements.resize(byte_size());
    copy_native_into(copy->elements.data());
    void* data = copy->elements.data();
    return borrow(data, dtype_, shape_, {}, std::move(copy));
  }
  NDArray out(dtype_.needs_swap() ? dtype_.with_byte_order(native_byte_order()) : dtype_, shape_);
  copy_native_into(out.data_);
  return out;
}

NDArray NDArray::in_order_of(const DType& stored) const {
  NDArray out = to_native();
  if (stored.needs_swap() && out.dtype_.holds_vlen() == false) {
    swap_elements(out.data_, out.element_count(), stored);
    out.dtype_ = stored;
  }
  return out;
}

void NDArray::copy_native_into(void* out) const {
  auto* dst = static_cast<unsigned char*>(out);
  const uint64_t size = dtype_.size();
  if (is_c_contiguous()) {
    if (byte_size() > 0) std::memcpy(dst, data_, byte_size());
  } else {
    for_each_element([&](const void* src) {
      std::memcpy(dst, src, size);
      dst += size;
    });
  }
  swap_elements(out, element_count(), dtype_);
}

NDArray NDArray::field(std::string_view name) const {
  if (dtype_.kind() != DTypeKind::kCompound) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("field '{}': the array's elements ({}) are not structs",
                            std::string(name), dtype_.to_string()));
  }
  const DTypeField* found = nullptr;
  std::vector<std::string> names;
  for (const DTypeField& f : dtype_.fields()) {
    if (f.name == name) found = &f;
    names.push_back(f.name);
  }
  if (!found) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("no field '{}' in {} (fields: {})", std::string(name),
                            dtype_.name().empty() ? std::string("the struct") : dtype_.name(),
                            fmt::join(names, ", ")));
  }
  std::vector<int64_t> dims = shape_.dims();
  dims.insert(dims.end(), found->shape.begin(), found->shape.end());
  NDArray out;
  if (found->type->holds_vlen()) {
    // Its elements point into the heap this array keeps: the field's copy keeps it too.
    auto copy = std::make_shared<HeapCopy>();
    copy->heap = storage_;
    copy->elements.resize(*Shape(dims).byte_size(found->type->size()));
    void* data = copy->elements.data();
    out = borrow(data, *found->type, Shape(dims), {}, std::move(copy));
  } else {
    out = NDArray(*found->type, Shape(dims));
  }
  uint64_t bytes = found->type->size();  // of one record's field; fits inside the record
  for (int64_t d : found->shape) bytes *= static_cast<uint64_t>(d);
  if (out.element_count() == 0) return out;
  auto* dst = static_cast<unsigned char*>(out.data_);
  for_each_element([&](const void* record) {
    std::memcpy(dst, static_cast<const unsigned char*>(record) + found->offset, bytes);
    dst += bytes;
  });
  return out;
}

NDArray NDArray::select(const Hyperslab& slab) const {
  slab.check_fits(shape_.dims());
  NDArray view;
  view.dtype_ = dtype_;
  view.storage_ = storage_;
  view.owns_ = false;
  const bool empty =
      std::any_of(slab.count.begin(), slab.count.end(), [](int64_t c) { return c == 0; });
  auto* p = static_cast<unsigned char*>(data_);
  std::vector<int64_t> dims, strides;
  for (size_t d = 0; d < shape_.rank(); ++d) {
    if (!empty) p += slab.start[d] * strides_[d];
    if (!slab.dropped.empty() && slab.dropped[d]) continue;
    dims.push_back(slab.count[d]);
    // Of one element (or none) the step is never taken, and may be any int64 (-2^63 too).
    strides.push_back(slab.count[d] <= 1 ? strides_[d] : strides_[d] * slab.step(d));
  }
  view.shape_ = Shape(std::move(dims));
  view.strides_ = std::move(strides);
  view.data_ = p;
  return view;
}

void NDArray::to_native_in_place() {
  if (!dtype_.needs_swap()) return;
  const DType stored = dtype_;
  if (is_c_contiguous()) {
    swap_elements(data_, element_count(), stored);
  } else {
    for_each_element([&](const void* p) { swap_elements(const_cast<void*>(p), 1, stored); });
  }
  dtype_ = stored.with_byte_order(native_byte_order());
}

NDArray NDArray::widen_float16() const {
  const bool is_half = dtype_.kind() == DTypeKind::kFloat && dtype_.size() == 2;
  const bool is_half_pair = dtype_.kind() == DTypeKind::kComplex && dtype_.size() == 4;
  if (!is_half && !is_half_pair) {
    throw Error(ErrorCategory::kType, "widen_float16 needs f2 or c4, not " + dtype_.to_string());
  }
  NDArray native = to_native();
  NDArray out(is_half ? DType::float_(4) : DType::complex(8), shape_);
  const uint64_t halves = element_count() * (is_half ? 1 : 2);
  const auto* src = static_cast<const unsigned char*>(native.data_);
  auto* dst = static_cast<float*>(out.data_);
  for (uint64_t i = 0; i < halves; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = half_to_float(h);
  }
  return out;
}

}  // namespace dudley
