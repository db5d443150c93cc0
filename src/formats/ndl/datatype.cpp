#include "datatype.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "dudley/core/numeric_names.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/suggest.hpp"
#include "text/yaml_emit.hpp"

namespace dudley::ndl {
namespace {

using yaml::location_of;

[[noreturn]] void fail(const YamlNode& node, const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::kType, what, location_of(node, path));
}

// NDL's numbers: the integers and float32/float64 of the shared table (no float16 or
// complex). Native order: NDL says the byte order elsewhere (`endian`).
bool is_ndl_number(const DType& t) {
  return t.is_integer() || (t.kind() == DTypeKind::kFloat && t.size() >= 4);
}

std::optional<DType> number_named(std::string_view name) {
  std::optional<DType> t = numeric_type_named(name, native_byte_order());
  if (!t || !is_ndl_number(*t)) return std::nullopt;
  return t;
}

std::vector<std::string> simple_names() {
  std::vector<std::string> names{"string", "objref"};
  for (std::string_view n : numeric_type_names()) {
    if (number_named(n)) names.emplace_back(n);
  }
  return names;
}

// A non-negative integer scalar.
uint64_t count_of(const YamlNode& node, const std::string& path, const char* what) {
  const model::Value v = node.is_scalar() ? yaml::scalar_value(node, path) : model::Value();
  if (v.is<int64_t>() && v.as<int64_t>() >= 0) return static_cast<uint64_t>(v.as<int64_t>());
  if (v.is<uint64_t>()) return v.as<uint64_t>();
  fail(node, path, fmt::format("{} must be a non-negative integer", what));
}

int64_t enum_value(const YamlNode& node, const std::string& path, const std::string& member) {
  const model::Value v = node.is_scalar() ? yaml::scalar_value(node, path) : model::Value();
  if (v.is<int64_t>()) return v.as<int64_t>();
  if (v.is<uint64_t>()) {
    // Above INT64_MAX: kept as its two's complement bits; only uint64 holds it (checked by
    // the caller through the base's range).
    return static_cast<int64_t>(v.as<uint64_t>());
  }
  fail(node, path, fmt::format("enum member '{}' must have an integer value", member));
}

// The keys of a single-key mapping ({opaque: ...}) and the like: every key must be known.
void check_keys(const YamlNode& node, const std::string& path,
                std::initializer_list<const char*> keys, const std::string& what) {
  for (size_t i = 0; i + 1 < node.items.size(); i += 2) {
    const std::string_view key = node.items[i]->text;
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
      std::vector<std::string> names(keys.begin(), keys.end());
      fail(*node.items[i], path,
           fmt::format("unknown key '{}' in {}{}; the keys are {}", key, what,
                       did_you_mean(std::string(key), names), fmt::join(names, ", ")));
    }
  }
}

const YamlNode& required(const YamlNode& node, const std::string& path, const char* key,
                         const std::string& what) {
  const YamlNode* v = node.find(key);
  if (!v) fail(node, path, fmt::format("{} needs '{}'", what, key));
  return *v;
}

DType parse_enum(const YamlNode& body, const std::string& path) {
  if (!body.is_mapping()) fail(body, path, "enum must be a mapping with 'members'");
  check_keys(body, path, {"base", "members"}, "enum");
  const YamlNode& members = required(body, path, "members", "enum");
  if (!members.is_mapping() || members.map_size() == 0)
    fail(members, path, "enum members must be a mapping of names to integers");
  std::vector<DTypeEnumMember> list;
  bool any_negative = false;
  bool any_huge = false;  // above INT64_MAX: only uint64 holds it
  for (size_t i = 0; i + 1 < members.items.size(); i += 2) {
    const YamlNode& value = *members.items[i + 1];
    std::string name(members.items[i]->text);
    const model::Value v = value.is_scalar() ? yaml::scalar_value(value, path) : model::Value();
    any_huge |= v.is<uint64_t>();
    list.push_back({name, enum_value(value, path, name)});
    any_negative |= v.is<int64_t>() && v.as<int64_t>() < 0;
  }
  if (any_huge && any_negative)
    fail(members, path, "enum members span more than any integer type holds");
  DType base;
  if (const YamlNode* b = body.find("base")) {
    const std::optional<DType> n = b->is_scalar() ? number_named(b->text) : std::nullopt;
    if (!n || !n->is_integer())
      fail(*b, path, "enum base must be an integer type (int8 ... uint64)");
    base = *n;
  } else {
    // The smallest integer type holding every member: unsigned when none is negative.
    unsigned bytes = 1;
    for (const DTypeEnumMember& m : list) {
      for (; bytes < 8; bytes *= 2) {
        const unsigned bits = bytes * 8;
        const bool fits =
            any_negative
                ? m.value >= -(int64_t{1} << (bits - 1)) && m.value < (int64_t{1} << (bits - 1))
                : (any_huge ? false : static_cast<uint64_t>(m.value) < (uint64_t{1} << bits));
        if (fits) break;
      }
    }
    const ByteOrder order = bytes == 1 ? ByteOrder::kNotApplicable : native_byte_order();
    base = any_negative ? DType::int_(bytes, order) : DType::uint(bytes, order);
  }
  // Every member must fit its base.
  const unsigned bits = static_cast<unsigned>(base.size() * 8);
  for (size_t i = 0; i < list.size(); ++i) {
    const DTypeEnumMember& m = list[i];
    const YamlNode& at = *members.items[2 * i + 1];
    const model::Value v = yaml::scalar_value(at, path);
    bool fits;
    if (base.kind() == DTypeKind::kInt) {
      fits = !v.is<uint64_t>() && (bits == 64 || (m.value >= -(int64_t{1} << (bits - 1)) &&
                                                  m.value < (int64_t{1} << (bits - 1))));
    } else {
      fits =
          v.is<uint64_t>() ||
          (m.value >= 0 && (bits == 64 || static_cast<uint64_t>(m.value) < (uint64_t{1} << bits)));
    }
    if (!fits) fail(at, path, fmt::format("enum member '{}' does not fit its base type", m.name));
  }
  return DType::enumeration(base, std::move(list));
}

DType parse_compound(const YamlNode& body, const std::string& path) {
  std::vector<DTypeField> fields;
  std::set<std::string, std::less<>> names;
  uint64_t offset = 0;
  auto add = [&](const YamlNode& key, const YamlNode& type) {
    std::string name(key.text);
    if (!key.is_scalar() || name.empty()) fail(key, path, "compound member names must be text");
    if (!names.insert(name).second)
      fail(key, path, fmt::format("compound member '{}' is given twice", name));
    DType t = parse_type(type, path);
    DTypeField f;
    f.name = name;
    f.offset = offset;
    f.type = std::make_shared<const DType>(t);
    auto next = checked_add(offset, t.size());
    if (!next) fail(type, path, "compound type is too large");
    offset = *next;
    fields.push_back(std::move(f));
  };
  if (body.is_sequence()) {
    // The spec's form: a list of single-key mappings, in member order.
    for (YamlRef item : body.items) {
      if (!item->is_mapping() || item->map_size() != 1)
        fail(*item, path, "each compound member must be a mapping of one name to its type");
      add(*item->items[0], *item->items[1]);
    }
  } else if (body.is_mapping()) {
    for (size_t i = 0; i + 1 < body.items.size(); i += 2) add(*body.items[i], *body.items[i + 1]);
  } else {
    fail(body, path, "compound must be a list of members");
  }
  if (fields.empty()) fail(body, path, "compound needs at least one member");
  return DType::compound(std::move(fields));
}

std::vector<int64_t> parse_array_shape(const YamlNode& node, const std::string& path) {
  if (!node.is_sequence() || node.items.empty())
    fail(node, path, "array shape must be a list of positive integers");
  std::vector<int64_t> shape;
  for (YamlRef d : node.items) {
    const uint64_t n = count_of(*d, path, "an array dimension");
    if (n == 0 || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(*d, path, "array dimensions must be positive");
    shape.push_back(static_cast<int64_t>(n));
  }
  return shape;
}

}  // namespace

DType parse_type(const YamlNode& node, const std::string& path) {
  if (node.is_scalar()) {
    const std::string name(node.text);
    if (name == "string") return DType::vlen(DType::text(TextEncoding::kUtf8));
    if (name == "objref") return DType::reference(ReferenceKind::kObject);
    if (std::optional<DType> n = number_named(name)) return *n;
    const std::vector<std::string> names = simple_names();
    fail(node, path,
         fmt::format("unknown NDL type '{}'{}; the types are {}, opaque, enum, regref, compound, "
                     "vlen, array",
                     name, did_you_mean(name, names), fmt::join(names, ", ")));
  }
  if (!node.is_mapping() || node.map_size() != 1)
    fail(node, path,
         "a type is a name (float32) or a mapping of one kind (opaque, enum, regref, compound, "
         "vlen, array) to its details");
  const std::string kind(node.items[0]->text);
  const YamlNode& body = *node.items[1];
  if (kind == "enum") return parse_enum(body, path);
  if (kind == "compound") return parse_compound(body, path);
  if (!body.is_mapping()) fail(body, path, fmt::format("{} must be a mapping", kind));
  if (kind == "opaque") {
    check_keys(body, path, {"size", "tag"}, "opaque");
    const YamlNode& size = required(body, path, "size", "opaque");
    const uint64_t bytes = count_of(size, path, "opaque size");
    if (bytes == 0) fail(size, path, "opaque size must be positive");
    std::string tag;
    if (const YamlNode* t = body.find("tag")) {
      if (!t->is_scalar()) fail(*t, path, "opaque tag must be text");
      tag = std::string(t->text);
    }
    return DType::opaque(bytes, tag);
  }
  if (kind == "regref") {
    check_keys(body, path, {"selection"}, "regref");
    const YamlNode& sel = required(body, path, "selection", "regref");
    if (sel.is_scalar() && sel.text == "block") return DType::reference(ReferenceKind::kRegion);
    if (sel.is_scalar() && sel.text == "element")
      return DType::reference(ReferenceKind::kRegionElements);
    fail(sel, path, "regref selection must be 'block' or 'element'");
  }
  if (kind == "vlen") {
    check_keys(body, path, {"base"}, "vlen");
    return DType::vlen(parse_type(required(body, path, "base", "vlen"), path));
  }
  if (kind == "array") {
    check_keys(body, path, {"base", "shape"}, "array");
    DType base = parse_type(required(body, path, "base", "array"), path);
    std::vector<int64_t> shape = parse_array_shape(required(body, path, "shape", "array"), path);
    std::optional<uint64_t> bytes = base.size();
    for (int64_t d : shape) bytes = bytes ? checked_mul(*bytes, static_cast<uint64_t>(d)) : bytes;
    if (!bytes || *bytes > (uint64_t{1} << 48)) fail(node, path, "array type is too large");
    return DType::fixed_array(base, std::move(shape));
  }
  fail(*node.items[0], path,
       fmt::format("unknown NDL type kind '{}'{}; the kinds are opaque, enum, regref, compound, "
                   "vlen, array",
                   kind,
                   did_you_mean(kind, {"opaque", "enum", "regref", "compound", "vlen", "array"})));
}

bool expressible(const DType& type, std::string* why) {
  auto no = [&](std::string what) {
    if (why) *why = std::move(what);
    return false;
  };
  switch (type.kind()) {
    case DTypeKind::kFloat:
      return type.size() == 2 ? no("float16 (NDL has float32 and float64 only)") : true;
    case DTypeKind::kComplex:
      return type.size() == 4 ? no("complex of float16 (NDL has float32 and float64 only)") : true;
    case DTypeKind::kPointer:
      return no("a Dudley pointer (NDL references name objects of the file, not pointees)");
    case DTypeKind::kText:
      // Fixed strings are strings; single code units (Dudley S1 arrays) are strings of one.
      return true;
    case DTypeKind::kEnum:
      return expressible(type.base(), why);
    case DTypeKind::kFixedArray:
    case DTypeKind::kVLen:
      if (type.kind() == DTypeKind::kVLen && type.base().joins_units()) return true;
      return expressible(type.base(), why);
    case DTypeKind::kCompound:
      for (const DTypeField& f : type.fields()) {
        if (!expressible(*f.type, why)) return false;
      }
      return true;
    case DTypeKind::kTime:
      return no(fmt::format("{} (numpy's datetime64 and timedelta64 have no NDL type)",
                            type.to_string()));
    case DTypeKind::kBool:
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kRawBits:
    case DTypeKind::kOpaque:
    case DTypeKind::kReference:
      return true;
  }
  return no(type.to_string());  // every kind is named above: a new one is refused until it is
}

namespace {

std::string pad(int n) {
  return std::string(static_cast<size_t>(n), ' ');
}

std::string number_name(const DType& t) {
  const std::optional<std::string_view> name =
      is_ndl_number(t) ? numeric_type_name(t) : std::nullopt;
  if (!name)
    throw Error(ErrorCategory::kType, fmt::format("NDL has no type for {}", t.to_string()));
  return std::string(*name);
}

void emit_members(std::string& out, const std::vector<std::pair<std::string, const DType*>>& fields,
                  int indent) {
  for (const auto& [name, t] : fields) {
    out += pad(indent) + "- " + yaml::yaml_string(name) + ":";
    emit_type(out, *t, indent + 4);
  }
}

}  // namespace

void emit_type(std::string& out, const DType& type, int indent) {
  const std::string in = pad(indent + 2);
  switch (type.kind()) {
    case DTypeKind::kBool:
      out += "\n" + in + "enum:\n" + in + "  base: int8\n" + in + "  members:\n" + in +
             "    \"FALSE\": 0\n" + in + "    \"TRUE\": 1\n";
      return;
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kFloat:
      out += " ";
      out += number_name(type);
      out += "\n";
      return;
    case DTypeKind::kComplex: {
      const DType part = DType::float_(static_cast<unsigned>(type.size() / 2));
      out += "\n" + in + "compound:\n";
      emit_members(out, {{"r", &part}, {"i", &part}}, indent + 4);
      return;
    }
    case DTypeKind::kText:
    case DTypeKind::kVLen:
      if (type.kind() == DTypeKind::kText || type.base().joins_units()) {
        out += " string\n";
        return;
      }
      out += "\n" + in + "vlen:\n" + in + "  base:";
      emit_type(out, type.base(), indent + 4);
      return;
    case DTypeKind::kRawBits:
    case DTypeKind::kOpaque:
      out += "\n" + in + "opaque:\n" + in + fmt::format("  size: {}\n", type.size());
      if (type.kind() == DTypeKind::kOpaque && !type.tag().empty())
        out += in + "  tag: " + yaml::yaml_string(type.tag()) + "\n";
      return;
    case DTypeKind::kEnum:
      out += "\n" + in + "enum:\n" + in + "  base: " + number_name(type.base()) + "\n" + in +
             "  members:\n";
      for (const DTypeEnumMember& m : type.enum_members()) {
        if (type.base().kind() == DTypeKind::kUInt) {
          out += fmt::format("{}    {}: {}\n", in, yaml::yaml_string(m.name),
                             static_cast<uint64_t>(m.value));
        } else {
          out += fmt::format("{}    {}: {}\n", in, yaml::yaml_string(m.name), m.value);
        }
      }
      return;
    case DTypeKind::kCompound: {
      std::vector<DType> shaped;  // fields with a sub-array shape are arrays of their type
      shaped.reserve(type.fields().size());
      std::vector<std::pair<std::string, const DType*>> fields;
      for (const DTypeField& f : type.fields()) {
        shaped.push_back(f.shape.empty() ? *f.type : DType::fixed_array(*f.type, f.shape));
      }
      for (size_t i = 0; i < shaped.size(); ++i)
        fields.push_back({type.fields()[i].name, &shaped[i]});
      out += "\n" + in + "compound:\n";
      emit_members(out, fields, indent + 4);
      return;
    }
    case DTypeKind::kFixedArray:
      out += "\n" + in + "array:\n" + in + "  base:";
      emit_type(out, type.base(), indent + 4);
      out += in + fmt::format("  shape: [{}]\n", fmt::join(type.array_shape(), ", "));
      return;
    case DTypeKind::kReference:
      if (type.reference_kind() == ReferenceKind::kObject) {
        out += " objref\n";
      } else {
        out += "\n" + in + "regref:\n" + in + "  selection: " +
               (type.reference_kind() == ReferenceKind::kRegion ? "block" : "element") + "\n";
      }
      return;
    case DTypeKind::kPointer:
      out += " uint64\n";  // not reached: expressible() refuses pointers
      return;
    case DTypeKind::kTime:  // not reached: expressible() refuses them
      throw Error(ErrorCategory::kType, fmt::format("NDL has no type for {}", type.to_string()));
  }
}

DType as_ndl_type(const DType& type) {
  const auto native = [](const DType& t) {
    return t.size() == 1 ? t.with_byte_order(ByteOrder::kNotApplicable)
                         : t.with_byte_order(native_byte_order());
  };
  switch (type.kind()) {
    case DTypeKind::kBool:
      return DType::enumeration(DType::int_(1, ByteOrder::kNotApplicable),
                                {{"FALSE", 0}, {"TRUE", 1}});
    case DTypeKind::kComplex: {
      const DType part = DType::float_(static_cast<unsigned>(type.size() / 2));
      const auto p = std::make_shared<const DType>(part);
      return DType::compound({{"r", p, 0, {}}, {"i", p, part.size(), {}}});
    }
    case DTypeKind::kText:
      return DType::vlen(DType::text(TextEncoding::kUtf8));
    case DTypeKind::kRawBits:
      return DType::opaque(type.size());
    case DTypeKind::kVLen:
      if (type.base().joins_units()) return DType::vlen(DType::text(TextEncoding::kUtf8));
      return DType::vlen(as_ndl_type(type.base()));
    case DTypeKind::kEnum:
      return DType::enumeration(native(type.base()), type.enum_members());
    case DTypeKind::kFixedArray:
      return DType::fixed_array(as_ndl_type(type.base()), type.array_shape());
    case DTypeKind::kCompound: {
      std::vector<DTypeField> fields;
      uint64_t offset = 0;
      for (const DTypeField& f : type.fields()) {
        DType t = as_ndl_type(f.shape.empty() ? *f.type : DType::fixed_array(*f.type, f.shape));
        fields.push_back({f.name, std::make_shared<const DType>(t), offset, {}});
        offset += t.size();
      }
      return DType::compound(std::move(fields));
    }
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kFloat:
      return native(type);
    default:
      return type;
  }
}

}  // namespace dudley::ndl
