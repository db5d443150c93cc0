#include "cli/dump_mask.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dudley/core/error.hpp"

namespace dudley::cli {

namespace {

// Whether an element's bytes are not all zero: a mask element that hides (bool8 true, or
// any non-zero number, as the standard says).
bool nonzero(const unsigned char* p, uint64_t size) {
  for (uint64_t i = 0; i < size; ++i) {
    if (p[i] != 0) return true;
  }
  return false;
}

template <typename T>
double load(const unsigned char* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return static_cast<double>(x);
}

// An element of a native numeric array as a double (integers beyond 2^53 round, as python
// asdf's comparison of a float mask would).
std::optional<double> element_value(const DType& t, const unsigned char* p) {
  const bool is_int = t.kind() == DTypeKind::kInt;
  switch (t.kind()) {
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
      switch (t.size()) {
        case 1:
          return is_int ? load<int8_t>(p) : load<uint8_t>(p);
        case 2:
          return is_int ? load<int16_t>(p) : load<uint16_t>(p);
        case 4:
          return is_int ? load<int32_t>(p) : load<uint32_t>(p);
        case 8:
          return is_int ? load<int64_t>(p) : load<uint64_t>(p);
        default:
          return std::nullopt;
      }
    case DTypeKind::kFloat:
      if (t.size() == 4) return load<float>(p);
      if (t.size() == 8) return load<double>(p);
      return std::nullopt;
    case DTypeKind::kBool:
      return *p ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

}  // namespace

MaskReader::MaskReader(const model::Tree& tree, const model::Masking& masking,
                       std::vector<int64_t> shape)
    : shape_(std::move(shape)), value_(masking.value) {
  if (value_) return;
  if (masking.elements) {  // held in memory: read as a mask array read once
    whole_mask_ = *masking.elements;
    mask_shape_ = masking.elements->shape().dims();
    if (mask_shape_ != shape_) {
      throw Error(ErrorCategory::kData, "its mask does not have the array's shape");
    }
    return;
  }
  const model::Node* m = tree.find(masking.array);
  if (!m || m->kind != model::NodeKind::kArray || !m->data || !m->error.empty()) {
    throw Error(ErrorCategory::kData, fmt::format("its mask {} cannot be read", masking.array));
  }
  mask_ = m->data;
  mask_shape_ = m->shape;
  bool broadcasts = mask_shape_.size() <= shape_.size();
  for (size_t k = 1; broadcasts && k <= mask_shape_.size(); ++k) {
    const int64_t mk = mask_shape_[mask_shape_.size() - k];
    broadcasts = mk == 1 || mk == shape_[shape_.size() - k];
  }
  if (!broadcasts) {
    throw Error(ErrorCategory::kData,
                fmt::format("its mask {} has shape [{}], which does not broadcast to [{}]",
                            masking.array, fmt::join(mask_shape_, ", "), fmt::join(shape_, ", ")));
  }
}

std::vector<uint8_t> MaskReader::masked(const Hyperslab& block, const NDArray& values) {
  return value_ ? by_value(values) : by_array(block, values.element_count());
}

std::vector<uint8_t> MaskReader::by_value(const NDArray& values) const {
  std::vector<uint8_t> out(values.element_count(), 0);
  double want = 0;
  bool nan = false;
  if (const auto* d = std::get_if<double>(&value_->storage())) {
    want = *d;
    nan = std::isnan(*d);
  } else if (const auto* i = std::get_if<int64_t>(&value_->storage())) {
    want = static_cast<double>(*i);
  } else if (const auto* u = std::get_if<uint64_t>(&value_->storage())) {
    want = static_cast<double>(*u);
  } else {
    return out;  // a mask value that is no number masks nothing
  }
  const DType& t = values.dtype();
  const auto* p = static_cast<const unsigned char*>(values.data());
  for (uint64_t k = 0; k < out.size(); ++k, p += t.size()) {
    const std::optional<double> v = element_value(t, p);
    if (v) out[k] = nan ? std::isnan(*v) : *v == want;
  }
  return out;
}

std::vector<uint8_t> MaskReader::by_array(const Hyperslab& block, uint64_t count) {
  std::vector<uint8_t> out(count, 0);
  if (count == 0) return out;
  if (mask_shape_ == shape_ && mask_) {  // the same selection of the mask
    Hyperslab same = block;
    same.dropped.clear();
    const NDArray m = mask_->read(same).to_native();
    const auto* p = static_cast<const unsigned char*>(m.data());
    for (uint64_t k = 0; k < count; ++k)
      out[k] = nonzero(p + k * m.dtype().size(), m.dtype().size());
    return out;
  }
  // A mask that broadcasts is no larger than its array along any dimension: read it once,
  // then find each element's mask element, aligned from the last dimension.
  if (!whole_mask_) whole_mask_ = mask_->read().to_native();
  // (A mask of the array's own shape held in memory takes this path too: offset 0.)
  const size_t rank = shape_.size();
  const size_t offset = rank - mask_shape_.size();
  std::vector<int64_t> index(rank, 0), at(mask_shape_.size(), 0);
  const uint64_t size = whole_mask_->dtype().size();
  for (uint64_t k = 0; k < count; ++k) {
    for (size_t d = 0; d < mask_shape_.size(); ++d) {
      const int64_t stored = block.start[offset + d] + index[offset + d] * block.step(offset + d);
      at[d] = mask_shape_[d] == 1 ? 0 : stored;
    }
    out[k] = nonzero(static_cast<const unsigned char*>(whole_mask_->element_ptr(at)), size);
    for (size_t d = rank; d-- > 0;) {  // the next index of the block, in C order
      if (++index[d] < block.count[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace dudley::cli
