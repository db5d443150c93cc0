#include "values.hpp"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "dudley/core/integer_bytes.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"
#include "text/yaml_emit.hpp"

namespace dudley::ndl {
namespace {

using model::Value;
using yaml::location_of;

[[noreturn]] void fail(const YamlNode& node, const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::kData, what, location_of(node, path));
}

// Memory a value's variable-length elements point into; the array keeps it alive.
struct Heap {
  std::vector<std::vector<std::byte>> blocks;
  std::vector<std::byte> main;
};

class Parser {
 public:
  Parser(const std::string& path, model::ReferenceTable& refs, uint64_t& budget, Heap& heap)
      : path_(path), refs_(refs), budget_(budget), heap_(heap) {}

  // Claims `bytes` of the budget before they are allocated.
  void take(uint64_t bytes, const YamlNode& at) {
    if (bytes > budget_)
      throw Error(ErrorCategory::kLimit,
                  "value takes more memory than a document of this size may claim",
                  location_of(at, path_));
    budget_ -= bytes;
  }

  void element(const YamlNode& n, const DType& t, std::byte* out) {
    switch (t.kind()) {
      case DTypeKind::kInt:
      case DTypeKind::kUInt:
        integer(n, t, out, "");
        return;
      case DTypeKind::kFloat:
        floating(n, t, out);
        return;
      case DTypeKind::kEnum:
        enumerated(n, t, out);
        return;
      case DTypeKind::kOpaque:
        opaque(n, t, out);
        return;
      case DTypeKind::kReference:
        reference(n, t, out);
        return;
      case DTypeKind::kCompound:
        compound(n, t, out);
        return;
      case DTypeKind::kFixedArray:
        nested(n, t.array_shape(), 0, t.base(), out);
        return;
      case DTypeKind::kVLen:
        vlen(n, t, out);
        return;
      default:
        fail(n, path_, fmt::format("values of type {} cannot be given in NDL", t.to_string()));
    }
  }

  // Elements of `shape` from dimension `d` on, as nested sequences, into `out` (C order).
  // The lengths are checked against the shape before any element is parsed.
  void nested(const YamlNode& n, const std::vector<int64_t>& shape, size_t d, const DType& t,
              std::byte* out) {
    if (d == shape.size()) {
      element(n, t, out);
      return;
    }
    if (!n.is_sequence() || n.items.size() != static_cast<uint64_t>(shape[d])) {
      fail(n, path_,
           fmt::format("expected a list of {} values for dimension {} of shape [{}]", shape[d], d,
                       fmt::join(shape, ", ")));
    }
    uint64_t inner = t.size();
    for (size_t k = d + 1; k < shape.size(); ++k) inner *= static_cast<uint64_t>(shape[k]);
    for (size_t i = 0; i < n.items.size(); ++i)
      nested(*n.items[i], shape, d + 1, t, out + i * inner);
  }

  // Whether `n` has the nesting `shape` asks for (without looking at elements).
  void check_nesting(const YamlNode& n, const std::vector<int64_t>& shape, size_t d) {
    if (d == shape.size()) return;
    if (!n.is_sequence() || n.items.size() != static_cast<uint64_t>(shape[d])) {
      fail(n, path_,
           fmt::format("expected a list of {} values for dimension {} of shape [{}]", shape[d], d,
                       fmt::join(shape, ", ")));
    }
    for (YamlRef item : n.items) check_nesting(*item, shape, d + 1);
  }

 private:
  Value scalar(const YamlNode& n) { return n.is_scalar() ? yaml::scalar_value(n, path_) : Value(); }

  void integer(const YamlNode& n, const DType& t, std::byte* out, const std::string& what) {
    const Value v = scalar(n);
    const unsigned bits = static_cast<unsigned>(t.size() * 8);
    bool fits = false;
    uint64_t bits_value = 0;
    if (v.is<int64_t>()) {
      const int64_t x = v.as<int64_t>();
      bits_value = static_cast<uint64_t>(x);
      fits =
          t.kind() == DTypeKind::kInt
              ? bits == 64 || (x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1)))
              : x >= 0 && (bits == 64 || static_cast<uint64_t>(x) < (uint64_t{1} << bits));
    } else if (v.is<uint64_t>()) {
      bits_value = v.as<uint64_t>();
      fits = t.kind() == DTypeKind::kUInt && bits == 64;
    } else {
      fail(n, path_, fmt::format("{}expected an integer ({})", what, t.to_string()));
    }
    if (!fits) fail(n, path_, fmt::format("{}{} does not fit {}", what, n.text, t.to_string()));
    store_native_integer(bits_value, t.size(), out);
  }

  void floating(const YamlNode& n, const DType& t, std::byte* out) {
    const Value v = scalar(n);
    double x;
    if (v.is<double>()) {
      x = v.as<double>();
    } else if (v.is<int64_t>()) {
      x = static_cast<double>(v.as<int64_t>());
    } else if (v.is<uint64_t>()) {
      x = static_cast<double>(v.as<uint64_t>());
    } else {
      fail(n, path_, fmt::format("expected a number ({})", t.size() == 4 ? "float32" : "float64"));
    }
    if (t.size() == 4) {
      if (std::isfinite(x) && std::fabs(x) > FLT_MAX)
        fail(n, path_, fmt::format("{} is out of the range of float32", n.text));
      const auto f = static_cast<float>(x);
      std::memcpy(out, &f, 4);
    } else {
      std::memcpy(out, &x, 8);
    }
  }

  void enumerated(const YamlNode& n, const DType& t, std::byte* out) {
    // A member by its name as written: plain ON and OFF are YAML 1.1 booleans, yet here
    // they can only mean the members of those names.
    if (n.is_scalar()) {
      for (const DTypeEnumMember& m : t.enum_members()) {
        if (m.name == n.text) {
          store_native_integer(static_cast<uint64_t>(m.value), t.size(), out);
          return;
        }
      }
    }
    const Value v = scalar(n);
    if (v.is<std::string>()) {
      for (const DTypeEnumMember& m : t.enum_members()) {
        if (m.name == v.as<std::string>()) {
          store_native_integer(static_cast<uint64_t>(m.value), t.size(), out);
          return;
        }
      }
      std::vector<std::string> names;
      for (const DTypeEnumMember& m : t.enum_members()) names.push_back(m.name);
      fail(n, path_,
           fmt::format("'{}' is not a member of the enum ({})", v.as<std::string>(),
                       fmt::join(names, ", ")));
    }
    // A value that is no member's is allowed as its integer, as HDF5 stores it.
    integer(n, t.base(), out, "enum value: ");
  }

  void opaque(const YamlNode& n, const DType& t, std::byte* out) {
    const Value v = scalar(n);
    if (!v.is<model::ValueBytes>())
      fail(n, path_, "an opaque value must be !!binary (base64 text)");
    const auto& bytes = v.as<model::ValueBytes>();
    if (bytes.size() > t.size())
      fail(n, path_,
           fmt::format("opaque value of {} bytes is longer than its type's {}", bytes.size(),
                       t.size()));
    if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
    std::memset(out + bytes.size(), 0, t.size() - bytes.size());
  }

  void reference(const YamlNode& n, const DType& t, std::byte* out) {
    uint64_t key = 0;
    const Value v = scalar(n);
    if (n.is_scalar() && v.is_null()) {
      key = 0;
    } else if (t.reference_kind() == ReferenceKind::kObject) {
      if (!v.is<std::string>() || v.as<std::string>().empty() || v.as<std::string>()[0] != '/')
        fail(n, path_, "an object reference is the absolute path of its target, or null");
      key = refs_.add(v);
    } else {
      key = refs_.add(region(n, t));
    }
    std::memcpy(out, &key, 8);
  }

  std::vector<Value> index_list(const YamlNode& n, const char* what) {
    if (!n.is_sequence() || n.items.empty())
      fail(n, path_, fmt::format("{} must be a list of indexes", what));
    std::vector<Value> list;
    for (YamlRef i : n.items) {
      const Value v = scalar(*i);
      if (!v.is<int64_t>() || v.as<int64_t>() < 0)
        fail(*i, path_, fmt::format("{} must hold non-negative integers", what));
      list.push_back(v);
    }
    return list;
  }

  Value region(const YamlNode& n, const DType& t) {
    const bool block = t.reference_kind() == ReferenceKind::kRegion;
    if (!n.is_mapping())
      fail(n, path_,
           block ? "a block region reference is {target: PATH, start: [...], opposite: [...]}"
                 : "an element region reference is {target: PATH, elements: [[...], ...]}");
    const YamlNode* target = n.find("target");
    const Value path = target ? scalar(*target) : Value();
    if (!path.is<std::string>() || path.as<std::string>().empty() ||
        path.as<std::string>()[0] != '/')
      fail(target ? *target : n, path_, "a region reference needs 'target', an absolute path");
    model::ValueMap map{{"target", path}};
    if (block) {
      const YamlNode* start = n.find("start");
      const YamlNode* opposite = n.find("opposite");
      if (!start || !opposite || n.map_size() != 3)
        fail(n, path_, "a block region reference has exactly 'target', 'start' and 'opposite'");
      auto a = index_list(*start, "start");
      auto b = index_list(*opposite, "opposite");
      if (a.size() != b.size()) fail(*opposite, path_, "'start' and 'opposite' differ in rank");
      map.emplace_back("start", Value(std::move(a)));
      map.emplace_back("opposite", Value(std::move(b)));
    } else {
      const YamlNode* elements = n.find("elements");
      if (!elements || n.map_size() != 2 || !elements->is_sequence())
        fail(n, path_, "an element region reference has exactly 'target' and 'elements'");
      model::ValueList list;
      for (YamlRef e : elements->items) {
        list.emplace_back(index_list(*e, "each element"));
        if (list.back().as<model::ValueList>().size() != list.front().as<model::ValueList>().size())
          fail(*e, path_, "the elements of a region reference differ in rank");
      }
      map.emplace_back("elements", Value(std::move(list)));
    }
    return Value(std::move(map));
  }

  void compound(const YamlNode& n, const DType& t, std::byte* out) {
    const auto& fields = t.fields();
    auto field = [&](const DTypeField& f, const YamlNode& v) {
      if (f.shape.empty()) {
        element(v, *f.type, out + f.offset);
      } else {
        nested(v, f.shape, 0, *f.type, out + f.offset);
      }
    };
    if (n.is_mapping()) {
      if (n.map_size() != fields.size())
        fail(n, path_, fmt::format("a compound value has {} members", fields.size()));
      for (const DTypeField& f : fields) {
        const YamlNode* v = n.find(f.name);
        if (!v) fail(n, path_, fmt::format("compound value lacks member '{}'", f.name));
        field(f, *v);
      }
    } else if (n.is_sequence() && n.items.size() == fields.size()) {
      for (size_t i = 0; i < fields.size(); ++i) field(fields[i], *n.items[i]);
    } else {
      fail(n, path_, "a compound value is a mapping of its members' names to their values");
    }
  }

  void vlen(const YamlNode& n, const DType& t, std::byte* out) {
    VLenElement e;
    if (t.base().joins_units()) {
      const Value v = scalar(n);
      // A plain number where a string is declared is its text (`value: [[180]]`); a plain
      // boolean or null is not, as `No` and `~` are no one's spelling of those words.
      const bool number_text =
          n.is_scalar() && n.plain && (v.is<int64_t>() || v.is<uint64_t>() || v.is<double>());
      if (!v.is<std::string>() && !number_text) {
        fail(n, path_,
             n.is_scalar() && n.plain
                 ? fmt::format("'{}' is not a string in YAML 1.1 (quote it)", n.text)
                 : std::string("expected a string"));
      }
      const std::string s = number_text ? std::string(n.text) : v.as<std::string>();
      take(s.size(), n);
      auto& block = heap_.blocks.emplace_back(s.size());
      if (!s.empty()) std::memcpy(block.data(), s.data(), s.size());
      e = {block.data(), s.size()};
    } else {
      if (!n.is_sequence()) fail(n, path_, "a vlen value is a list");
      const uint64_t bytes = n.items.size() * t.base().size();
      take(bytes, n);
      auto& block = heap_.blocks.emplace_back(bytes);
      for (size_t i = 0; i < n.items.size(); ++i)
        element(*n.items[i], t.base(), block.data() + i * t.base().size());
      e = {block.data(), n.items.size()};
    }
    std::memcpy(out, &e, sizeof e);
  }

  const std::string& path_;
  model::ReferenceTable& refs_;
  uint64_t& budget_;
  Heap& heap_;
};

}  // namespace

NDArray parse_value(const YamlNode& node, const DType& type, const std::vector<int64_t>& shape,
                    const std::string& path, model::ReferenceTable& refs, uint64_t& byte_budget) {
  auto heap = std::make_shared<Heap>();
  Parser parser(path, refs, byte_budget, *heap);
  parser.check_nesting(node, shape, 0);
  const std::optional<uint64_t> bytes = Shape(shape).byte_size(type.size());
  if (!bytes) throw Error(ErrorCategory::kLimit, "value is too large", location_of(node, path));
  parser.take(*bytes, node);
  heap->main.resize(*bytes);
  parser.nested(node, shape, 0, type, heap->main.data());
  void* data = heap->main.data();
  return NDArray::borrow(data, type, Shape(shape), {}, heap);
}

NDArray short_form_value(const YamlNode& node, const std::string& path) {
  const Value v = node.is_scalar() ? yaml::scalar_value(node, path) : Value();
  auto scalar = [](const DType& t, const void* bytes) {
    NDArray a(t, Shape(std::vector<int64_t>{}));
    std::memcpy(a.mutable_data(), bytes, t.size());
    return a;
  };
  if (v.is<int64_t>()) return scalar(DType::int_(8), &v.as<int64_t>());
  if (v.is<uint64_t>()) return scalar(DType::uint(8), &v.as<uint64_t>());
  if (v.is<double>()) return scalar(DType::float_(8), &v.as<double>());
  throw Error(ErrorCategory::kData,
              node.is_scalar()
                  ? fmt::format("'{}' is not a string or a number; give the attribute's 'type', "
                                "'shape' and 'value'",
                                node.text)
                  : "an attribute in short form is a string or a number; give 'type', 'shape' "
                    "and 'value' for others",
              location_of(node, path));
}

std::string flow_string(const std::string& s) {
  std::string text = yaml::yaml_string(s);
  if (text.front() == '"' || text.find_first_of(",[]{}#") == std::string::npos) return text;
  // Flow indicators would end a plain scalar inside a flow collection: quote it.
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

template <typename T>
T load(const std::byte* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

int64_t signed_at(const std::byte* p, uint64_t size) {
  switch (size) {
    case 1:
      return load<int8_t>(p);
    case 2:
      return load<int16_t>(p);
    case 4:
      return load<int32_t>(p);
    default:
      return load<int64_t>(p);
  }
}

uint64_t unsigned_at(const std::byte* p, uint64_t size) {
  switch (size) {
    case 1:
      return load<uint8_t>(p);
    case 2:
      return load<uint16_t>(p);
    case 4:
      return load<uint32_t>(p);
    default:
      return load<uint64_t>(p);
  }
}

std::string text_of(const std::byte* p, const DType& t, uint64_t units) {
  switch (t.encoding()) {
    case TextEncoding::kAscii:
      return decode_s1({reinterpret_cast<const char*>(p), units});
    case TextEncoding::kUtf8:
      return decode_utf8({reinterpret_cast<const char*>(p), units});
    case TextEncoding::kUtf16: {
      std::vector<uint16_t> u(units);
      if (units) std::memcpy(u.data(), p, units * 2);
      return decode_utf16(u.data(), u.size());
    }
    case TextEncoding::kUtf32: {
      std::vector<uint32_t> u(units);
      if (units) std::memcpy(u.data(), p, units * 4);
      return decode_utf32(u.data(), u.size());
    }
  }
  return {};
}

}  // namespace

void flow_yaml(std::string& out, const Value& v) {
  if (v.is<model::ValueList>()) {
    out += "[";
    bool first = true;
    for (const Value& item : v.as<model::ValueList>()) {
      if (!first) out += ", ";
      first = false;
      flow_yaml(out, item);
    }
    out += "]";
  } else if (v.is<model::ValueMap>()) {
    out += "{";
    bool first = true;
    for (const auto& [k, item] : v.as<model::ValueMap>()) {
      if (!first) out += ", ";
      first = false;
      out += flow_string(k) + ": ";
      flow_yaml(out, item);
    }
    out += "}";
  } else if (v.is<std::string>()) {
    out += flow_string(v.as<std::string>());
  } else {
    out += yaml::yaml_scalar(v);
  }
}

void ValueEmitter::element(std::string& out, const std::byte* p, const DType& t) const {
  switch (t.kind()) {
    case DTypeKind::kBool:
      out += *p != std::byte{0} ? "\"TRUE\"" : "\"FALSE\"";
      return;
    case DTypeKind::kInt:
    case DTypeKind::kPointer:
      out += fmt::format("{}", signed_at(p, t.size()));
      return;
    case DTypeKind::kUInt:
      out += fmt::format("{}", unsigned_at(p, t.size()));
      return;
    case DTypeKind::kFloat:
      if (t.size() == 4) {
        float f;
        std::memcpy(&f, p, 4);
        out += yaml::yaml_float(f, true);
      } else {
        double d;
        std::memcpy(&d, p, 8);
        out += yaml::yaml_float(d, false);
      }
      return;
    case DTypeKind::kComplex: {
      const DType part = DType::float_(static_cast<unsigned>(t.size() / 2));
      out += "{r: ";
      element(out, p, part);
      out += ", i: ";
      element(out, p + part.size(), part);
      out += "}";
      return;
    }
    case DTypeKind::kText: {
      const uint64_t units = t.is_string() ? t.text_length() : 1;
      out += flow_string(text_of(p, t, units));
      return;
    }
    case DTypeKind::kVLen: {
      VLenElement e;
      std::memcpy(&e, p, sizeof e);
      const DType& base = t.base();
      if (base.joins_units()) {
        out += flow_string(text_of(e.data, base, e.count));
        return;
      }
      out += "[";
      for (uint64_t i = 0; i < e.count; ++i) {
        if (i) out += ", ";
        element(out, e.data + i * base.size(), base);
      }
      out += "]";
      return;
    }
    case DTypeKind::kOpaque:
    case DTypeKind::kRawBits: {
      const auto* u = reinterpret_cast<const uint8_t*>(p);
      out += "!!binary \"" + encode_base64({u, static_cast<size_t>(t.size())}) + "\"";
      return;
    }
    case DTypeKind::kEnum: {
      const int64_t v = t.base().kind() == DTypeKind::kInt
                            ? signed_at(p, t.size())
                            : static_cast<int64_t>(unsigned_at(p, t.size()));
      for (const DTypeEnumMember& m : t.enum_members()) {
        if (m.value == v) {
          out += flow_string(m.name);
          return;
        }
      }
      element(out, p, t.base());
      return;
    }
    case DTypeKind::kCompound: {
      out += "{";
      bool first = true;
      for (const DTypeField& f : t.fields()) {
        if (!first) out += ", ";
        first = false;
        out += flow_string(f.name) + ": ";
        if (f.shape.empty()) {
          element(out, p + f.offset, *f.type);
        } else {
          const NDArray sub =
              NDArray::borrow(const_cast<std::byte*>(p + f.offset), *f.type, Shape(f.shape));
          array(out, sub, 0);
        }
      }
      out += "}";
      return;
    }
    case DTypeKind::kFixedArray: {
      const NDArray sub =
          NDArray::borrow(const_cast<std::byte*>(p), t.base(), Shape(t.array_shape()));
      array(out, sub, 0);
      return;
    }
    case DTypeKind::kReference: {
      uint64_t key;
      std::memcpy(&key, p, 8);
      flow_yaml(out, refs_ ? refs_->find(key) : Value());
      return;
    }
  }
}

void ValueEmitter::array(std::string& out, const NDArray& a, int indent) const {
  const auto& shape = a.shape().dims();
  const auto& strides = a.strides();
  const auto* base = static_cast<const std::byte*>(a.data());
  if (shape.empty()) {
    element(out, base, a.dtype());
    return;
  }
  // An empty array is nested lists down to its first zero extent, each an empty list
  // there: [3, 0] is [[], [], []], [0, 3] is [].
  size_t rank = shape.size();
  const bool empty = a.element_count() == 0;
  if (empty) {
    rank = 0;
    while (shape[rank] != 0) ++rank;
    if (rank == 0) {
      out += "[]";
      return;
    }
  }
  std::vector<int64_t> index(rank, 0);
  const std::string newline = "\n" + std::string(static_cast<size_t>(indent), ' ');
  out += std::string(rank, '[');
  while (true) {
    if (empty) {
      out += "[]";
    } else {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
      element(out, base + offset, a.dtype());
    }
    // Advance: close the dimensions that ended, open the next ones.
    size_t d = rank;
    while (d > 0 && ++index[d - 1] == shape[d - 1]) {
      index[d - 1] = 0;
      --d;
    }
    const size_t closed = rank - d;
    if (d == 0) {
      out += std::string(rank, ']');
      return;
    }
    out += std::string(closed, ']');
    out += ",";
    out += closed > 0 ? newline : " ";
    out += std::string(closed, '[');
  }
}

}  // namespace dudley::ndl
