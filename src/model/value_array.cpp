#include "dudley/model/value_array.hpp"

#include <cstring>
#include <vector>

#include "dudley/core/vlen.hpp"

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

}  // namespace dudley::model
