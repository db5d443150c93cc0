#include "dudley/model/value_array.hpp"

#include <cstring>
#include <vector>

#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/model/text_strings.hpp"

namespace dudley::model {

std::optional<NDArray> value_as_array(const Value& v, std::string& why) {
  auto scalar_of = [](const Value& x) -> std::optional<DType> {
    if (x.is<bool>()) return DType::boolean();
    if (x.is<int64_t>()) return DType::int_(8);
    if (x.is<uint64_t>()) return DType::uint(8);
    if (x.is<double>()) return DType::float_(8);
    if (x.is<std::string>()) return DType::vlen(DType::text(TextEncoding::kUtf8));
    return std::nullopt;
  };
  std::vector<const Value*> items;
  std::vector<int64_t> shape;
  if (v.is<model::ValueList>()) {
    for (const Value& x : v.as<model::ValueList>()) items.push_back(&x);
    shape = {static_cast<int64_t>(items.size())};
  } else {
    items.push_back(&v);
  }
  std::optional<DType> type;
  for (const Value* x : items) {
    std::optional<DType> t = scalar_of(*x);
    if (t && type && *t != *type) {
      // Integers and floats together: all floats.
      if (t->kind() != DTypeKind::kText && type->kind() != DTypeKind::kVLen &&
          t->kind() != DTypeKind::kVLen && t->kind() != DTypeKind::kBool &&
          type->kind() != DTypeKind::kBool) {
        t = DType::float_(8);
      } else {
        t.reset();
      }
    }
    if (!t) {
      why = v.is<model::ValueMap>() ? "a mapping" : v.is_null() ? "null" : "a list of mixed values";
      return std::nullopt;
    }
    type = t;
  }
  if (!type) type = DType::float_(8);  // an empty list
  if (type->kind() == DTypeKind::kVLen) {
    VLenArrayBuilder b(*type, items.size());
    for (const Value* x : items) b.append(x->as<std::string>().data(), x->as<std::string>().size());
    return b.finish(Shape(shape));
  }
  NDArray a(*type, Shape(shape));
  auto* out = static_cast<std::byte*>(a.mutable_data());
  for (size_t i = 0; i < items.size(); ++i) {
    const Value& x = *items[i];
    std::byte* p = out + i * type->size();
    if (type->kind() == DTypeKind::kBool) {
      *p = std::byte{x.as<bool>() ? uint8_t{1} : uint8_t{0}};
    } else if (type->kind() == DTypeKind::kFloat) {
      const double d = x.is<double>()    ? x.as<double>()
                       : x.is<int64_t>() ? static_cast<double>(x.as<int64_t>())
                                         : static_cast<double>(x.as<uint64_t>());
      std::memcpy(p, &d, 8);
    } else if (x.is<int64_t>()) {
      std::memcpy(p, &x.as<int64_t>(), 8);
    } else {
      std::memcpy(p, &x.as<uint64_t>(), 8);
    }
  }
  return a;
}

namespace {

// One element at `p` of the native-order type `t`, or nullopt for a type JSON has no value
// of.
std::optional<Value> element(const DType& t, const std::byte* p) {
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (t.kind()) {
    case DTypeKind::kBool:
      return Value(*p != std::byte{0});
    case DTypeKind::kInt:
      switch (t.size()) {
        case 1:
          return Value(int64_t{load(int8_t{})});
        case 2:
          return Value(int64_t{load(int16_t{})});
        case 4:
          return Value(int64_t{load(int32_t{})});
        default:
          return Value(load(int64_t{}));
      }
    case DTypeKind::kUInt:
      switch (t.size()) {
        case 1:
          return Value(uint64_t{load(uint8_t{})});
        case 2:
          return Value(uint64_t{load(uint16_t{})});
        case 4:
          return Value(uint64_t{load(uint32_t{})});
        default:
          return Value(load(uint64_t{}));
      }
    case DTypeKind::kFloat:
      if (t.size() == 4) return Value(static_cast<double>(load(float{})));
      if (t.size() == 8) return Value(load(double{}));
      return std::nullopt;
    case DTypeKind::kText:
      return Value(fixed_text_utf8(t, p));
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<Value> array_as_value(const NDArray& stored) {
  const NDArray a = stored.to_native();
  const DType& t = a.dtype();
  ValueList flat;
  if (t.kind() == DTypeKind::kVLen) {
    if (t.base().kind() != DTypeKind::kText || t.base().encoding() != TextEncoding::kUtf8)
      return std::nullopt;
    for (const VLenElement& e : vlen_elements(a)) flat.emplace_back(std::string(e.bytes(1)));
  } else {
    const auto* p = static_cast<const std::byte*>(a.data());
    for (uint64_t i = 0; i < a.element_count(); ++i) {
      std::optional<Value> v = element(t, p + i * t.size());
      if (!v) return std::nullopt;
      flat.push_back(std::move(*v));
    }
  }
  const auto& dims = a.shape().dims();
  if (flat.size() == 1 && dims.size() <= 1) return flat.front();
  if (dims.empty() && flat.empty()) return std::nullopt;
  return nest_by_shape(std::move(flat), dims);
}

Value nest_by_shape(ValueList flat, const std::vector<int64_t>& dims) {
  if (dims.empty()) return flat.empty() ? Value() : flat.front();
  // Innermost dimension first: rows of the last extent, then rows of those...
  ValueList level = std::move(flat);
  for (size_t d = dims.size(); d-- > 1;) {
    ValueList next;
    const auto n = static_cast<size_t>(dims[d]);
    for (size_t i = 0; n > 0 && i < level.size(); i += n) {
      next.emplace_back(
          ValueList(std::make_move_iterator(level.begin() + static_cast<long>(i)),
                    std::make_move_iterator(level.begin() + static_cast<long>(i + n))));
    }
    level = std::move(next);
  }
  return Value(std::move(level));
}

}  // namespace dudley::model
