// YAML 1.1 scalars -> model values, by the resolver rules PyYAML applies (ASDF files are
// written and read by it, so `yes` is a bool, `017` is 15 and `1e10` is a string there and
// must be here too).
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "dudley/core/text.hpp"
#include "dudley/text/yaml.hpp"

namespace dudley::yaml {
namespace {

using model::Value;

bool one_of(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (s == o) return true;
  }
  return false;
}

bool is_null_text(std::string_view s) {
  return one_of(s, {"", "~", "null", "Null", "NULL"});
}

std::optional<bool> bool_text(std::string_view s) {
  if (one_of(s, {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) return true;
  if (one_of(s, {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) return false;
  return std::nullopt;
}

// Digits of `s` in `base` with '_' ignored (at least one digit); nullopt beyond 64 bits or on
// any other character.
std::optional<uint64_t> digits(std::string_view s, unsigned base) {
  uint64_t v = 0;
  bool any = false;
  for (char c : s) {
    if (c == '_') continue;
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    if (d >= base) return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
    any = true;
  }
  if (!any) return std::nullopt;
  return v;
}

bool all_in(std::string_view s, std::string_view allowed) {
  for (char c : s) {
    if (allowed.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// Whether `s` has the shape of a YAML 1.1 int (so that one too large for 64 bits is still
// an int, kept as text).
bool int_shaped(std::string_view s) {
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
  if (body.empty()) return false;
  if (body.starts_with("0b")) return body.size() > 2 && all_in(body.substr(2), "01_");
  if (body.starts_with("0x"))
    return body.size() > 2 && all_in(body.substr(2), "0123456789abcdefABCDEF_");
  if (body == "0") return true;
  if (body[0] == '0') return all_in(body, "01234567_");
  if (body[0] < '1' || body[0] > '9') return false;
  if (body.find(':') != std::string_view::npos) {
    return all_in(body, "0123456789_:");  // base 60, checked fully when converted
  }
  return all_in(body, "0123456789_");
}

// Base 60 ("1:20" = 80): the first part any digits, the others 0-59.
std::optional<uint64_t> base60(std::string_view body) {
  uint64_t v = 0;
  size_t start = 0;
  bool first = true;
  while (start <= body.size()) {
    size_t colon = body.find(':', start);
    std::string_view part =
        body.substr(start, colon == std::string_view::npos ? body.npos : colon - start);
    auto d = digits(part, 10);
    if (!d || (!first && *d > 59)) return std::nullopt;
    if (v > (UINT64_MAX - *d) / 60) return std::nullopt;
    v = v * 60 + *d;
    first = false;
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return v;
}

// An int by YAML 1.1: nullopt when the text is not one or does not fit in 64 bits.
std::optional<Value> int_value(std::string_view s) {
  if (!int_shaped(s)) return std::nullopt;
  bool negative = false;
  std::string_view body = s;
  if (body[0] == '-' || body[0] == '+') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude;
  if (body.starts_with("0b")) {
    magnitude = digits(body.substr(2), 2);
  } else if (body.starts_with("0x")) {
    magnitude = digits(body.substr(2), 16);
  } else if (body.size() > 1 && body[0] == '0') {
    magnitude = digits(body.substr(1), 8);
  } else if (body.find(':') != std::string_view::npos) {
    magnitude = base60(body);
  } else {
    magnitude = digits(body, 10);
  }
  if (!magnitude) return std::nullopt;
  if (!negative) {
    if (*magnitude <= static_cast<uint64_t>(INT64_MAX))
      return Value(static_cast<int64_t>(*magnitude));
    return Value(*magnitude);
  }
  if (*magnitude <= static_cast<uint64_t>(INT64_MAX))
    return Value(-static_cast<int64_t>(*magnitude));
  if (*magnitude == static_cast<uint64_t>(INT64_MAX) + 1) return Value(INT64_MIN);
  return std::nullopt;
}

std::optional<double> parse_double(std::string_view s) {
  std::string clean;
  clean.reserve(s.size());
  for (char c : s) {
    if (c != '_') clean += c;
  }
  double v = 0;
  const char* begin = clean.data();
  if (!clean.empty() && clean[0] == '+') ++begin;
  auto [end, ec] = std::from_chars(begin, clean.data() + clean.size(), v);
  if (end != clean.data() + clean.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Beyond the range of a double: PyYAML's float() gives inf or 0 (with the sign).
    const bool negative = clean[0] == '-';
    const bool tiny = clean.find_first_of("eE") != std::string::npos &&
                      clean[clean.find_first_of("eE") + 1] == '-';
    v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    return negative ? -v : v;
  }
  if (ec != std::errc()) return std::nullopt;
  return v;
}

// A float by YAML 1.1 (PyYAML's resolver): digits with a '.', optional exponent with a sign;
// `.5`; base 60 with a fraction; `.inf`, `.nan` in three spellings.
std::optional<double> float_value(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (one_of(body, {".inf", ".Inf", ".INF"})) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (s.size() == body.size() && one_of(body, {".nan", ".NaN", ".NAN"})) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const size_t dot = body.find('.');
  if (dot == std::string_view::npos || body.empty()) return std::nullopt;
  std::string_view whole = body.substr(0, dot);
  std::string_view rest = body.substr(dot + 1);
  std::string_view fraction = rest;
  std::string_view exponent;
  if (size_t e = rest.find_first_of("eE"); e != std::string_view::npos) {
    fraction = rest.substr(0, e);
    exponent = rest.substr(e + 1);
    if (exponent.size() < 2 || (exponent[0] != '+' && exponent[0] != '-') ||
        !all_in(exponent.substr(1), "0123456789")) {
      return std::nullopt;
    }
  }
  if (!all_in(fraction, "0123456789_")) return std::nullopt;
  if (whole.find(':') != std::string_view::npos) {
    if (!exponent.empty() || whole.empty() || whole[0] < '0' || whole[0] > '9') return std::nullopt;
    auto w = base60(whole);
    auto f = parse_double("0." + std::string(fraction));
    if (!w || !f) return std::nullopt;
    const double v = static_cast<double>(*w) + *f;
    return negative ? -v : v;
  }
  if (whole.empty()) {
    if (fraction.empty() || fraction[0] == '_') return std::nullopt;  // `.`, `._`
  } else if (whole[0] < '0' || whole[0] > '9' || !all_in(whole, "0123456789_")) {
    return std::nullopt;
  }
  return parse_double(s);
}

[[noreturn]] void bad_scalar(const YamlNode& node, const std::string& path, std::string_view what) {
  throw Error(ErrorCategory::kSyntax, fmt::format("'{}' is not {}", node.text, what),
              location_of(node, path));
}

}  // namespace

Value scalar_value(const YamlNode& node, const std::string& path) {
  const std::string_view s = node.text;
  if (node.plain) {
    if (is_null_text(s)) return Value();
    if (auto b = bool_text(s)) return Value(*b);
    if (auto i = int_value(s)) return *i;
    if (int_shaped(s)) return Value(std::string(s)).with_tag(std::string(yaml_tags::kInt));
    if (auto f = float_value(s)) return Value(*f);
    return Value(std::string(s));
  }
  const std::string_view tag = node.tag;
  if (tag.empty() || tag == yaml_tags::kStr) return Value(std::string(s));
  if (tag == yaml_tags::kNull) {
    if (!is_null_text(s)) bad_scalar(node, path, "a null");
    return Value();
  }
  if (tag == yaml_tags::kBool) {
    auto b = bool_text(s);
    if (!b) bad_scalar(node, path, "a boolean");
    return Value(*b);
  }
  if (tag == yaml_tags::kInt) {
    if (auto i = int_value(s)) return *i;
    if (int_shaped(s)) return Value(std::string(s)).with_tag(std::string(yaml_tags::kInt));
    bad_scalar(node, path, "an integer");
  }
  if (tag == yaml_tags::kFloat) {
    if (auto f = float_value(s)) return Value(*f);
    if (auto i = int_value(s)) {
      return Value(i->is<int64_t>() ? static_cast<double>(i->as<int64_t>())
                                    : static_cast<double>(i->as<uint64_t>()));
    }
    if (auto f = parse_double(s)) return Value(*f);  // `!!float 1e10`: explicit, so accepted
    bad_scalar(node, path, "a float");
  }
  if (tag == yaml_tags::kBinary) {
    auto bytes = decode_base64(s);
    if (!bytes) bad_scalar(node, path, "base64");
    return Value(std::move(*bytes));
  }
  return Value(std::string(s)).with_tag(std::string(node.tag));
}

Value to_value(const YamlNode& node, const std::string& path, ExpansionBudget& budget) {
  budget.take(node);
  if (node.is_scalar()) return scalar_value(node, path);
  const bool plain_tag = node.tag.empty() || node.tag == yaml_tags::kMap ||
                         node.tag == yaml_tags::kSeq || node.tag == "!";
  Value out;
  if (node.is_sequence()) {
    model::ValueList list;
    list.reserve(node.items.size());
    for (const YamlRef& item : node.items) list.push_back(to_value(*item, path, budget));
    out = Value(std::move(list));
  } else {
    model::ValueMap map;
    map.reserve(node.map_size());
    std::unordered_map<std::string, size_t> index;  // a repeated key: the last wins (PyYAML)
    for (size_t i = 0; i + 1 < node.items.size(); i += 2) {
      budget.take(*node.items[i]);
      const std::string key(node.items[i]->text);
      Value v = to_value(*node.items[i + 1], path, budget);
      auto [it, fresh] = index.emplace(key, map.size());
      if (fresh) {
        map.emplace_back(key, std::move(v));
      } else {
        map[it->second].second = std::move(v);
      }
    }
    out = Value(std::move(map));
  }
  if (!plain_tag) out.with_tag(std::string(node.tag));
  return out;
}

}  // namespace dudley::yaml
