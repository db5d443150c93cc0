// Inline arrays: nested YAML lists -> NDArray. The walk over the lists recurses once per
// dimension, and YAML nesting is capped at model::kMaxValueDepth, so it is bounded.
#include "inline_data.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "datatype.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"

namespace dudley::asdf {
namespace {

// 128-bit arithmetic for sums of 64-bit products that cannot overflow it.
__extension__ using Int128 = __int128;

using model::Value;

[[noreturn]] void bad(const YamlNode& node, const std::string& path, const std::string& message) {
  throw Error(ErrorCategory::kData, message, location_of(node, path));
}

std::optional<double> number_text(std::string_view s) {
  std::string t(s);
  if (t == "nan" || t == "+nan" || t == "-nan") return std::numeric_limits<double>::quiet_NaN();
  if (t == "inf" || t == "+inf") return std::numeric_limits<double>::infinity();
  if (t == "-inf") return -std::numeric_limits<double>::infinity();
  const char* b = t.data();
  if (!t.empty() && t[0] == '+') ++b;
  double v = 0;
  auto [end, ec] = std::from_chars(b, t.data() + t.size(), v);
  if (end != t.data() + t.size() || t.empty()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  return v;
}

bool is_complex_node(const YamlNode& n) {
  return n.is_scalar() && std::string_view(n.tag).starts_with(kComplexTagPrefix);
}

// What a leaf is, for type inference.
enum class Leaf { kNull, kBool, kInt, kFloat, kComplex, kString };

struct Inference {
  Leaf widest = Leaf::kNull;
  uint64_t longest = 0;  // code points of the longest string
};

Leaf classify(const YamlNode& leaf, const std::string& path, uint64_t* chars) {
  if (is_complex_node(leaf)) return Leaf::kComplex;
  const Value v = scalar_value(leaf, path);
  if (v.is_null()) return Leaf::kNull;
  if (v.is<bool>()) return Leaf::kBool;
  if (v.is<int64_t>() || v.is<uint64_t>()) return Leaf::kInt;
  if (v.is<double>()) return Leaf::kFloat;
  const std::string_view text =
      v.is<std::string>() ? std::string_view(v.as<std::string>()) : leaf.text;
  auto cps = utf8_to_utf32(text);
  *chars = cps ? cps->size() : text.size();
  return Leaf::kString;
}

// The element size of every value of `type` in nested lists: how deep a record nests.
size_t value_depth(const DType& type) {
  if (type.kind() != DTypeKind::kCompound) return 0;
  size_t deepest = 0;
  for (const DTypeField& f : type.fields()) {
    deepest = std::max(deepest, value_depth(*f.type) + f.shape.size());
  }
  return 1 + deepest;
}

class Filler {
 public:
  Filler(const std::string& path, ExpansionBudget& budget) : path_(path), budget_(budget) {}

  // Writes the scalar or record `v` as one element of `type` (native order) at `dst`.
  void element(const YamlNode& v, const DType& type, unsigned char* dst) {
    budget_.take(v);
    if (type.kind() == DTypeKind::kCompound) return record(v, type, dst);
    if (!v.is_scalar())
      bad(v, path_, fmt::format("a list where a {} value belongs", type.to_string()));
    const Value value = is_complex_node(v) ? Value(std::string(v.text)) : scalar_value(v, path_);
    switch (type.kind()) {
      case DTypeKind::kBool: {
        bool b = false;
        if (value.is<bool>()) {
          b = value.as<bool>();
        } else if (value.is<int64_t>()) {
          b = value.as<int64_t>() != 0;
        } else if (!value.is_null()) {
          bad(v, path_, fmt::format("'{}' is not a boolean", v.text));
        }
        *dst = b ? 1 : 0;
        return;
      }
      case DTypeKind::kInt:
      case DTypeKind::kUInt:
        return integer(v, value, type, dst);
      case DTypeKind::kFloat: {
        const double d = real(v, value);
        if (type.size() == 4) {
          const float f = static_cast<float>(d);
          std::memcpy(dst, &f, 4);
        } else if (type.size() == 8) {
          std::memcpy(dst, &d, 8);
        } else {
          bad(v, path_, "inline float16 values are not supported");
        }
        return;
      }
      case DTypeKind::kComplex: {
        std::pair<double, double> c{0, 0};
        if (is_complex_node(v) || value.is<std::string>()) {
          auto parsed = parse_python_complex(v.text);
          if (!parsed) bad(v, path_, fmt::format("'{}' is not a complex number", v.text));
          c = *parsed;
        } else {
          c.first = real(v, value);
        }
        if (type.size() == 8) {
          const float parts[2] = {static_cast<float>(c.first), static_cast<float>(c.second)};
          std::memcpy(dst, parts, 8);
        } else {
          const double parts[2] = {c.first, c.second};
          std::memcpy(dst, parts, 16);
        }
        return;
      }
      case DTypeKind::kText:
        return text(v, value, type, dst);
      default:
        bad(v, path_, fmt::format("inline values of type {} are not supported", type.to_string()));
    }
  }

  // The nested lists of `dims` (from dimension `d`) of elements of `type`, in C order.
  void fill(const YamlNode& node, const std::vector<int64_t>& dims, size_t d, const DType& type,
            unsigned char*& dst) {
    if (d == dims.size()) {
      element(node, type, dst);
      dst += type.size();
      return;
    }
    budget_.take(node);
    if (!node.is_sequence() || node.items.size() != static_cast<uint64_t>(dims[d])) {
      bad(node, path_,
          fmt::format("the inline data is not rectangular: dimension {} should have {} "
                      "entries here",
                      d, dims[d]));
    }
    for (const YamlRef& item : node.items) fill(*item, dims, d + 1, type, dst);
  }

 private:
  void record(const YamlNode& v, const DType& type, unsigned char* dst) {
    const auto& fields = type.fields();
    if (!v.is_sequence() || v.items.size() != fields.size()) {
      bad(v, path_,
          fmt::format("a record of {} fields should be a list of {} values", fields.size(),
                      fields.size()));
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      unsigned char* at = dst + fields[i].offset;
      fill(*v.items[i], fields[i].shape, 0, *fields[i].type, at);
    }
  }

  double real(const YamlNode& v, const Value& value) {
    if (value.is<double>()) return value.as<double>();
    if (value.is<int64_t>()) return static_cast<double>(value.as<int64_t>());
    if (value.is<uint64_t>()) return static_cast<double>(value.as<uint64_t>());
    if (value.is<bool>()) return value.as<bool>() ? 1.0 : 0.0;
    if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (value.is<std::string>()) {
      // With an explicit datatype the reference library lets numpy convert strings such as
      // `1e-300` (which YAML 1.1 leaves a string).
      if (auto d = number_text(value.as<std::string>())) return *d;
    }
    bad(v, path_, fmt::format("'{}' is not a number", v.text));
  }

  void integer(const YamlNode& v, const Value& value, const DType& type, unsigned char* dst) {
    const unsigned bits = static_cast<unsigned>(type.size() * 8);
    const bool is_signed = type.kind() == DTypeKind::kInt;
    Int128 n = 0;
    if (value.is<int64_t>()) {
      n = value.as<int64_t>();
    } else if (value.is<uint64_t>()) {
      n = value.as<uint64_t>();
    } else if (value.is<bool>()) {
      n = value.as<bool>() ? 1 : 0;
    } else if (value.is<double>() && std::isfinite(value.as<double>()) &&
               std::fabs(value.as<double>()) < 1.9e19) {
      n = static_cast<Int128>(value.as<double>());
    } else if (!value.is_null()) {
      bad(v, path_, fmt::format("'{}' is not an integer", v.text));
    }
    const Int128 lo = is_signed ? -(static_cast<Int128>(1) << (bits - 1)) : 0;
    const Int128 hi = is_signed ? (static_cast<Int128>(1) << (bits - 1)) - 1
                                : (static_cast<Int128>(1) << bits) - 1;
    if (n < lo || n > hi)
      bad(v, path_, fmt::format("{} does not fit in {}", v.text, type.to_string()));
    const auto u = static_cast<uint64_t>(n);
    switch (bits) {
      case 8:
        *dst = static_cast<uint8_t>(u);
        break;
      case 16: {
        const auto x = static_cast<uint16_t>(u);
        std::memcpy(dst, &x, 2);
        break;
      }
      case 32: {
        const auto x = static_cast<uint32_t>(u);
        std::memcpy(dst, &x, 4);
        break;
      }
      default:
        std::memcpy(dst, &u, 8);
        break;
    }
  }

  void text(const YamlNode& v, const Value& value, const DType& type, unsigned char* dst) {
    std::string s = value.is_null() ? std::string() : std::string(v.text);
    if (value.is<bool>() || value.is<int64_t>() || value.is<double>()) s = v.text;
    const uint64_t n = type.text_length();
    if (type.encoding() == TextEncoding::kAscii) {
      for (char c : s) {
        if (static_cast<unsigned char>(c) >= 128)
          bad(v, path_, fmt::format("'{}' is not ASCII", s));
      }
      if (s.size() > n) bad(v, path_, fmt::format("'{}' is longer than {} characters", s, n));
      std::memcpy(dst, s.data(), s.size());  // the rest stays NUL
      return;
    }
    auto cps = utf8_to_utf32(s);
    if (!cps) bad(v, path_, "the text is not UTF-8");
    if (cps->size() > n) bad(v, path_, fmt::format("'{}' is longer than {} characters", s, n));
    for (size_t i = 0; i < cps->size(); ++i) {
      const auto cp = static_cast<uint32_t>((*cps)[i]);
      std::memcpy(dst + 4 * i, &cp, 4);
    }
  }

  const std::string& path_;
  ExpansionBudget& budget_;
};

// The shape of nested lists `depth` levels deep, following the first item of each.
std::vector<int64_t> nested_shape(const YamlNode& data, size_t depth) {
  std::vector<int64_t> dims;
  const YamlNode* n = &data;
  for (size_t d = 0; d < depth; ++d) {
    if (!n->is_sequence()) break;
    dims.push_back(static_cast<int64_t>(n->items.size()));
    if (n->items.empty()) break;
    n = n->items.front();
  }
  return dims;
}

// How deep lists nest along first items.
size_t list_depth(const YamlNode& data) {
  size_t depth = 0;
  for (const YamlNode* n = &data; n->is_sequence(); n = n->items.front()) {
    ++depth;
    if (n->items.empty()) break;
  }
  return depth;
}

void infer(const YamlNode& node, const std::string& path, ExpansionBudget& budget, Inference& out,
           size_t depth) {
  budget.take(node);
  if (node.is_sequence()) {
    for (const YamlRef& item : node.items) infer(*item, path, budget, out, depth + 1);
    return;
  }
  if (node.is_mapping()) bad(node, path, "a mapping inside inline array data");
  uint64_t chars = 0;
  const Leaf leaf = classify(node, path, &chars);
  out.longest = std::max(out.longest, chars);
  out.widest = std::max(out.widest, leaf);
}

// What inline data holds in its text: its values and their characters. Memory for the array
// is bounded by it, since fixed-size elements can make a few bytes of text very large: one
// string of 500,000 characters among 170,000 short ones is 340 GB of UCS-4.
struct TextVolume {
  uint64_t leaves = 0;
  uint64_t chars = 0;
};

void measure(const YamlNode& node, ExpansionBudget& budget, TextVolume& out) {
  budget.take(node);
  if (node.is_scalar()) {
    ++out.leaves;
    out.chars += node.text.size();
    return;
  }
  for (const YamlRef& item : node.items) measure(*item, budget, out);
}

// Memory an inline array may take whatever its text: small arrays are never refused.
constexpr uint64_t kInlineFloorBytes = uint64_t{64} << 20;

void check_inline_size(const YamlNode& data, const DType& type, uint64_t elements,
                       const std::string& path, ExpansionBudget& budget) {
  TextVolume volume;
  measure(data, budget, volume);
  // A value's text yields at most 16 bytes (complex128), a character 4 (UCS-4); four times
  // that covers fixed-size elements of fairly even length.
  const uint64_t honest = 4 * (16 * volume.leaves + 4 * volume.chars);
  const uint64_t allowed = std::max(kInlineFloorBytes, honest);
  const std::optional<uint64_t> bytes = checked_mul(elements, type.size());
  if (!bytes || *bytes > allowed) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("the inline data ({} values, {} characters) would take {} bytes as "
                            "{} elements of {} (fixed-size: every element as large as the "
                            "largest); at most {} are allowed for it",
                            volume.leaves, volume.chars,
                            bytes ? fmt::format("{}", *bytes) : std::string("more than 2^64"),
                            elements, type.to_string(), allowed),
                location_of(data, path));
  }
}

}  // namespace

std::optional<std::pair<double, double>> parse_python_complex(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  if (s.empty()) return std::nullopt;
  if (s.back() != 'j' && s.back() != 'J') {
    auto r = number_text(s);
    if (!r) return std::nullopt;
    return std::make_pair(*r, 0.0);
  }
  s.remove_suffix(1);
  // The imaginary part starts at the last sign that is not the first character and does not
  // follow an exponent's 'e'.
  size_t split = std::string_view::npos;
  for (size_t i = s.size(); i-- > 1;) {
    if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E') {
      split = i;
      break;
    }
  }
  if (split == std::string_view::npos) {
    auto im = number_text(s);
    if (!im) return std::nullopt;
    return std::make_pair(0.0, *im);
  }
  auto re = number_text(s.substr(0, split));
  auto im = number_text(s.substr(split));
  if (!re || !im) return std::nullopt;
  return std::make_pair(*re, *im);
}

NDArray inline_array(const YamlNode& data, const YamlNode* datatype, const YamlNode* shape,
                     const std::string& path, ExpansionBudget& budget) {
  DType type;
  if (datatype) {
    type = datatype_from_yaml(*datatype, native_byte_order(), path, budget);
  } else {
    Inference inf;
    infer(data, path, budget, inf, 0);
    switch (inf.widest) {
      case Leaf::kString:
        type = DType::string(TextEncoding::kUtf32, inf.longest);
        break;
      case Leaf::kComplex:
        type = DType::complex(16);
        break;
      case Leaf::kFloat:
        type = DType::float_(8);
        break;
      case Leaf::kInt:
        type = DType::int_(8);
        break;
      default:
        type = DType::boolean();
        break;
    }
  }
  std::vector<int64_t> dims;
  if (shape) {
    if (!shape->is_sequence()) bad(*shape, path, "shape must be a list");
    for (const YamlRef& d : shape->items) {
      const Value v = scalar_value(*d, path);
      if (!v.is<int64_t>() || v.as<int64_t>() < 0) bad(*d, path, "shape holds integers >= 0");
      dims.push_back(v.as<int64_t>());
    }
  } else {
    const size_t depth = list_depth(data);
    const size_t record = value_depth(type);
    dims = nested_shape(data, depth > record ? depth - record : 0);
  }
  if (!data.is_sequence() && !dims.empty())
    bad(data, path, "inline data must be a list for this shape");
  if (shape) {
    const std::vector<int64_t> found = nested_shape(data, dims.size());
    const bool empty_prefix = found.size() < dims.size() && !found.empty() && found.back() == 0 &&
                              std::equal(found.begin(), found.end(), dims.begin());
    if (found != dims && !empty_prefix) {
      bad(*shape, path,
          fmt::format("shape {} does not match the inline data, which is {}",
                      Shape(dims).to_string(), Shape(found).to_string()));
    }
  }
  // Each element is at least one node of the tree: a shape that claims more elements than
  // the tree can hold is refused before any memory is taken for it.
  const auto count = Shape(dims).element_count();
  budget.take(count ? *count : UINT64_MAX, data);
  check_inline_size(data, type, *count, path, budget);
  NDArray out(type, Shape(dims));
  auto* dst = static_cast<unsigned char*>(out.mutable_data());
  Filler(path, budget).fill(data, dims, 0, type, dst);
  return out;
}

}  // namespace dudley::asdf
