#include "dudley/core/vlen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace dudley {
namespace {

// What a finished array keeps alive: its elements and the heap they point into.
struct VLenStorage {
  std::vector<std::byte> heap;
  std::vector<VLenElement> elements;
};

}  // namespace

VLenArrayBuilder::VLenArrayBuilder(DType vlen_type, uint64_t items) : type_(std::move(vlen_type)) {
  if (type_.kind() != DTypeKind::kVLen) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("a VLenArrayBuilder of {}, not a variable-length type", type_.to_string()));
  }
  spans_.reserve(static_cast<size_t>(std::min<uint64_t>(items, uint64_t{1} << 24)));
}

void VLenArrayBuilder::append(const void* bytes, uint64_t size) {
  const uint64_t at = heap_.size();
  heap_.resize(at + size);
  if (size) std::memcpy(heap_.data() + at, bytes, size);
  spans_.emplace_back(at, size);
}

NDArray VLenArrayBuilder::finish(Shape shape) {
  const auto count = shape.element_count();
  if (!count || *count != spans_.size()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} variable-length items for an array of shape {}", spans_.size(),
                            shape.to_string()));
  }
  auto storage = std::make_shared<VLenStorage>();
  storage->heap = std::move(heap_);
  const uint64_t base = type_.base().size();
  storage->elements.reserve(spans_.size());
  for (const auto& [offset, bytes] : spans_) {
    storage->elements.push_back({storage->heap.data() + offset, base ? bytes / base : 0});
  }
  spans_.clear();
  void* data = storage->elements.data();
  return NDArray::borrow(data, type_, std::move(shape), {}, std::move(storage));
}

std::vector<VLenElement> vlen_elements(const NDArray& a) {
  std::vector<VLenElement> out;
  out.reserve(a.element_count());
  a.for_each_element([&](const void* p) {
    VLenElement e;
    std::memcpy(&e, p, sizeof e);
    out.push_back(e);
  });
  return out;
}

}  // namespace dudley
