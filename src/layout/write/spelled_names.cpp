#include "spelled_names.hpp"

#include <cctype>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

namespace {

std::string respelled(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) out += '_';
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out += (std::isalnum(u) || c == '_') ? c : '_';
  }
  return out;
}

}  // namespace

std::vector<std::string> dudley_spellings(const std::vector<std::string_view>& names) {
  std::vector<std::string> out(names.size());
  std::unordered_set<std::string> taken;
  taken.reserve(names.size() * 2);
  for (size_t i = 0; i < names.size(); ++i) {
    if (is_dudley_name(names[i])) {
      out[i] = std::string(names[i]);
      taken.insert(out[i]);
    }
  }
  // The next suffix to try per respelled base: 100k names that all respell to 'a_' then
  // cost one probe each instead of one per earlier sibling.
  std::unordered_map<std::string, size_t> next_suffix;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!out[i].empty()) continue;
    const std::string base = respelled(names[i]);
    std::string name = base;
    size_t& k = next_suffix.try_emplace(base, 2).first->second;
    while (!taken.insert(name).second) name = fmt::format("{}_{}", base, k++);
    out[i] = std::move(name);
  }
  return out;
}

DType in_dudley_terms(const DType& type, std::vector<int64_t>& shape) {
  if (type.kind() == DTypeKind::kText && !type.joins_units()) {
    shape.push_back(static_cast<int64_t>(type.text_length()));
    return DType::text(type.encoding(), 1, type.byte_order());
  }
  if (type.kind() != DTypeKind::kCompound) return type;
  std::vector<std::string_view> names;
  for (const DTypeField& f : type.fields()) names.push_back(f.name);
  const std::vector<std::string> spelled = dudley_spellings(names);
  std::vector<DTypeField> fields = type.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    fields[i].name = spelled[i];
    fields[i].type =
        std::make_shared<const DType>(in_dudley_terms(*fields[i].type, fields[i].shape));
  }
  return DType::compound(std::move(fields), type.size(), type.name());
}

namespace {

class DudleyTermsSource final : public model::ArraySource {
 public:
  DudleyTermsSource(std::shared_ptr<model::ArraySource> inner, const DType& type,
                    const std::vector<int64_t>& shape)
      : inner_(std::move(inner)), rank_(shape.size()) {
    shape_ = shape;
    type_ = in_dudley_terms(type, shape_);
  }

  NDArray read() override { return as_declared(inner_->read(), shape_); }

  NDArray read(const Hyperslab& slab) override {
    if (shape_.size() == rank_) return as_declared(inner_->read(slab), slab.result_shape());
    // The strings' characters are the last dimension: read whole strings of the elements
    // selected, then take the characters asked for.
    Hyperslab outer = slab;
    for (auto* v : {&outer.start, &outer.count, &outer.stride}) {
      if (v->size() > rank_) v->resize(rank_);
    }
    if (outer.dropped.size() > rank_) outer.dropped.resize(rank_);
    const NDArray strings = inner_->read(outer);
    std::vector<int64_t> units = outer.result_shape();
    units.push_back(shape_.back());
    const NDArray all = as_declared(strings, units);
    Hyperslab last = Hyperslab::all(units);
    last.start.back() = slab.start.back();
    last.count.back() = slab.count.back();
    last.stride.assign(units.size(), 1);
    if (!slab.stride.empty()) last.stride.back() = slab.stride.back();
    if (!slab.dropped.empty() && slab.dropped.back()) {
      last.dropped.assign(units.size(), false);
      last.dropped.back() = true;
    }
    return all.select(last);
  }

  void verify() override { inner_->verify(); }
  std::function<void()> prepare_verify() override { return inner_->prepare_verify(); }

  // Same bytes under another name of their type: a selection of the source's own
  // dimensions reads straight through.
  void read_into(const Hyperslab& slab, void* out) override {
    if (slab.count.size() == rank_) {
      inner_->read_into(slab, out);
    } else {
      ArraySource::read_into(slab, out);
    }
  }

  model::ReadUnit read_unit() const override {
    model::ReadUnit unit = inner_->read_unit();
    if (!unit.shape.empty() && shape_.size() > rank_) unit.shape.push_back(shape_.back());
    return unit;
  }

 private:
  // The bytes read, under the declared type and `shape` (same size: the view keeps them),
  // in native order: the declared type keeps the source's byte order, which the bytes no
  // longer have once read (a big-endian >U3 array read as native <U4 units).
  NDArray as_declared(const NDArray& read, const std::vector<int64_t>& shape) const {
    const bool as_read = read.is_c_contiguous() && !read.dtype().needs_swap();
    auto owner = std::make_shared<NDArray>(as_read ? read : read.to_native());
    const DType native = type_.needs_swap() ? type_.with_byte_order(native_byte_order()) : type_;
    return NDArray::borrow(owner->mutable_data(), native, Shape(shape), {}, owner);
  }

  std::shared_ptr<model::ArraySource> inner_;
  size_t rank_;  // of the source
  DType type_;
  std::vector<int64_t> shape_;
};

}  // namespace

std::shared_ptr<model::ArraySource> in_dudley_terms(std::shared_ptr<model::ArraySource> source,
                                                    const DType& type,
                                                    const std::vector<int64_t>& shape) {
  return std::make_shared<DudleyTermsSource>(std::move(source), type, shape);
}

}  // namespace dudley::layout
