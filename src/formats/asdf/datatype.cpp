// ASDF datatypes <-> DType. The reference library maps them onto numpy dtypes; the names
// and the packing (no alignment padding) follow it.
#include "datatype.hpp"
#include "yaml_names.hpp"

#include <fmt/format.h>

#include <charconv>
#include <memory>
#include <unordered_set>

#include "dudley/core/numeric_names.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::asdf {
namespace {

using model::Value;
using model::ValueList;
using model::ValueMap;

// No single element of a real file comes near this; it keeps every size computed from a
// type far from 64-bit overflow.
constexpr uint64_t kMaxElementBytes = uint64_t{1} << 40;

[[noreturn]] void bad_type(const YamlNode& node, const std::string& path,
                           const std::string& message) {
  throw Error(ErrorCategory::kType, message, location_of(node, path));
}

std::optional<int64_t> plain_int(const YamlNode& node) {
  if (!node.is_scalar()) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(node.text.data(), node.text.data() + node.text.size(), v);
  if (ec != std::errc() || end != node.text.data() + node.text.size()) return std::nullopt;
  return v;
}

ByteOrder order_of(const YamlNode& node, const std::string& path) {
  if (node.is_scalar() && node.text == "little") return ByteOrder::kLittle;
  if (node.is_scalar() && node.text == "big") return ByteOrder::kBig;
  bad_type(node, path,
           fmt::format("byteorder must be 'big' or 'little', not '{}'",
                       node.is_scalar() ? node.text : "a collection"));
}

DType from_yaml(const YamlNode& node, ByteOrder order, const std::string& path,
                ExpansionBudget& budget);

// A structured type: a list of fields, each a scalar datatype or {name, datatype, byteorder,
// shape}.
DType structured(const YamlNode& node, ByteOrder order, const std::string& path,
                 ExpansionBudget& budget) {
  std::vector<DTypeField> fields;
  fields.reserve(node.items.size());
  std::unordered_set<std::string> names;
  uint64_t offset = 0;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const YamlNode& item = *node.items[i];
    budget.take(item);
    DTypeField field;
    field.name = fmt::format("f{}", i);
    DType type;
    if (item.is_mapping()) {
      const YamlNode* sub = item.find("datatype");
      if (!sub) bad_type(item, path, "a structured field needs a 'datatype'");
      ByteOrder field_order = order;
      if (const YamlNode* bo = item.find("byteorder")) field_order = order_of(*bo, path);
      type = from_yaml(*sub, field_order, path, budget);
      if (const YamlNode* name = item.find("name")) {
        if (!name->is_scalar() || name->text.empty())
          bad_type(*name, path, "a field name must be a string");
        field.name = name->text;
      }
      if (const YamlNode* shape = item.find("shape")) {
        if (!shape->is_sequence()) bad_type(*shape, path, "a field's shape must be a list");
        for (const YamlRef& d : shape->items) {
          auto n = plain_int(*d);
          if (!n || *n < 0) bad_type(*d, path, "a field's shape holds integers >= 0");
          field.shape.push_back(*n);
        }
      }
    } else {
      type = from_yaml(item, order, path, budget);
    }
    if (!names.insert(field.name).second)
      bad_type(item, path, fmt::format("two fields are named '{}'", field.name));
    std::optional<uint64_t> bytes = type.size();
    for (int64_t n : field.shape)
      bytes = bytes ? checked_mul(*bytes, static_cast<uint64_t>(n)) : bytes;
    std::optional<uint64_t> end = bytes ? checked_add(offset, *bytes) : std::nullopt;
    if (!end || *end > kMaxElementBytes) {
      bad_type(item, path,
               fmt::format("the structured type is larger than {} bytes", kMaxElementBytes));
    }
    field.offset = offset;
    field.type = std::make_shared<const DType>(std::move(type));
    offset = *end;
    fields.push_back(std::move(field));
  }
  return DType::compound(std::move(fields), offset);
}

DType from_yaml(const YamlNode& node, ByteOrder order, const std::string& path,
                ExpansionBudget& budget) {
  budget.take(node);
  if (node.is_scalar()) {
    if (node.text == "bool8") return DType::boolean();
    if (auto numeric = numeric_type_named(node.text, order)) return *numeric;
    bad_type(node, path, fmt::format("unknown datatype '{}'", node.text));
  }
  if (node.is_mapping()) bad_type(node, path, "a datatype is a name or a list, not a mapping");
  // [ascii, N] / [ucs4, N], or a list of fields.
  if (node.items.size() == 2 && node.items[0]->is_scalar() &&
      (node.items[0]->text == "ascii" || node.items[0]->text == "ucs4")) {
    const bool ucs4 = node.items[0]->text == "ucs4";
    auto n = plain_int(*node.items[1]);
    if (!n || *n < 0 || static_cast<uint64_t>(*n) > kMaxElementBytes / 4) {
      bad_type(*node.items[1], path, "a string length must be an integer from 0 to 2^38");
    }
    return ucs4 ? DType::string(TextEncoding::kUtf32, static_cast<uint64_t>(*n), order)
                : DType::string(TextEncoding::kAscii, static_cast<uint64_t>(*n),
                                ByteOrder::kNotApplicable);
  }
  return structured(node, order, path, budget);
}

const char* order_name(ByteOrder order) {
  return order == ByteOrder::kLittle ? "little" : "big";
}

}  // namespace

DType datatype_from_yaml(const YamlNode& node, ByteOrder order, const std::string& path,
                         ExpansionBudget& budget) {
  return from_yaml(node, order, path, budget);
}

ByteOrder array_byte_order(const DType& type) {
  if (type.kind() == DTypeKind::kCompound || type.kind() == DTypeKind::kFixedArray)
    return ByteOrder::kBig;
  if (type.byte_order() == ByteOrder::kLittle || type.byte_order() == ByteOrder::kBig) {
    return type.byte_order();
  }
  return ByteOrder::kBig;
}

namespace {
// The byte order a type's values are stored in, when it has exactly one.
std::optional<ByteOrder> own_order(const DType& type) {
  if (type.byte_order() == ByteOrder::kLittle || type.byte_order() == ByteOrder::kBig) {
    return type.byte_order();
  }
  return std::nullopt;
}
}  // namespace

Value datatype_to_value(const DType& type, ByteOrder order, bool float16_allowed) {
  auto unsupported = [&]() -> Value {
    throw Error(ErrorCategory::kType, fmt::format("ASDF has no datatype for {}", type.to_string()));
  };
  switch (type.kind()) {
    case DTypeKind::kBool:
      return Value("bool8");
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kFloat:
    case DTypeKind::kComplex: {
      if (type.kind() == DTypeKind::kFloat && type.size() == 2 && !float16_allowed) {
        throw Error(ErrorCategory::kType,
                    "float16 needs core/ndarray-1.1.0 (ASDF Standard 1.6.0); this file is 1.5.0");
      }
      const std::optional<std::string_view> name = numeric_type_name(type);
      if (!name) return unsupported();  // a pair of float16
      return Value(std::string(*name));
    }
    case DTypeKind::kText:
      if (type.encoding() == TextEncoding::kAscii) {
        return Value(ValueList{Value("ascii"), Value(type.text_length())});
      }
      if (type.encoding() == TextEncoding::kUtf32) {
        return Value(ValueList{Value("ucs4"), Value(type.text_length())});
      }
      return unsupported();
    case DTypeKind::kEnum:  // ASDF has no enums: the integers (the writer notes it)
      return datatype_to_value(type.base(), order, float16_allowed);
    case DTypeKind::kCompound: {
      ValueList fields;
      uint64_t expected = 0;
      for (const DTypeField& f : type.fields()) {
        if (f.offset != expected) {
          throw Error(ErrorCategory::kType,
                      fmt::format("ASDF structured types are packed; field '{}' of {} has padding "
                                  "before it",
                                  f.name, type.to_string()));
        }
        ValueMap m;
        m.emplace_back("name", Value(f.name));
        const auto field_order = own_order(*f.type);
        if (field_order && *field_order != order)
          m.emplace_back("byteorder", Value(order_name(*field_order)));
        m.emplace_back("datatype",
                       datatype_to_value(*f.type, field_order.value_or(order), float16_allowed));
        if (!f.shape.empty()) {
          ValueList shape;
          for (int64_t d : f.shape) shape.emplace_back(d);
          m.emplace_back("shape", Value(std::move(shape)));
        }
        uint64_t bytes = f.type->size();
        for (int64_t d : f.shape) bytes *= static_cast<uint64_t>(d);
        expected = f.offset + bytes;
        fields.emplace_back(std::move(m));
      }
      if (expected != type.size()) {
        throw Error(ErrorCategory::kType,
                    fmt::format("ASDF structured types are packed; {} has padding at its end",
                                type.to_string()));
      }
      return Value(std::move(fields));
    }
    default:
      return unsupported();
  }
}

}  // namespace dudley::asdf
