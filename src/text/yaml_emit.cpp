#include "text/yaml_emit.hpp"

#include <fmt/format.h>

#include <cmath>

#include "dudley/core/error.hpp"
#include "dudley/core/text.hpp"
#include "dudley/text/yaml.hpp"

namespace dudley::yaml {
namespace {

using model::Value;

constexpr std::string_view kAsdfTagPrefix = "tag:stsci.edu:asdf/";

// The length of a character at `s[at]` that YAML 1.1 reads as a line break or a byte order
// mark although it is not ASCII (U+0085, U+2028, U+2029, U+FEFF), or a C1 control
// (U+0080-U+009F): written plain, such a character in a name would end the key there and
// make the rest of the name YAML of its own; 0 for any other.
size_t special_at(const std::string& s, size_t at) {
  const auto b = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0; };
  if (b(at) == 0xC2 && b(at + 1) >= 0x80 && b(at + 1) <= 0x9F) return 2;
  if (b(at) == 0xE2 && b(at + 1) == 0x80 && (b(at + 2) == 0xA8 || b(at + 2) == 0xA9)) return 3;
  if (b(at) == 0xEF && b(at + 1) == 0xBB && b(at + 2) == 0xBF) return 3;
  return 0;
}

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  YamlNode probe;
  probe.plain = true;
  probe.text = s;
  if (!scalar_value(probe, "").is<std::string>()) return true;  // reads as null/bool/number
  const unsigned char first = static_cast<unsigned char>(s[0]);
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`~ ").find(static_cast<char>(first)) !=
      std::string_view::npos) {
    return true;
  }
  if (s.back() == ' ' || s.find(": ") != std::string::npos || s.find(" #") != std::string::npos ||
      s.back() == ':') {
    return true;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f || special_at(s, i) > 0) return true;
  }
  return false;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (const size_t n = special_at(s, i); n > 0) {
      // As its code point, never the character itself: "\u2028".
      const uint32_t code = n == 2 ? static_cast<uint32_t>(static_cast<unsigned char>(s[i + 1]))
                            : static_cast<unsigned char>(s[i]) == 0xEF
                                ? 0xFEFF
                                : 0x2000 | (static_cast<unsigned char>(s[i + 2]) - 0x80);
      out += fmt::format("\\u{:04x}", code);
      i += n - 1;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

bool is_scalar(const Value& v) {
  return !v.is<model::ValueList>() && !v.is<model::ValueMap>();
}

// A short list of untagged scalars goes on one line, as the reference library writes shapes.
bool flow_list(const Value& v) {
  if (!v.is<model::ValueList>()) return false;
  const auto& list = v.as<model::ValueList>();
  if (list.size() > 16) return false;
  for (const Value& item : list) {
    if (!is_scalar(item) || !item.tag().empty() || item.is<model::ValueBytes>()) return false;
  }
  return true;
}

std::string pad(int n) {
  return std::string(static_cast<size_t>(n), ' ');
}

}  // namespace

std::string yaml_float(double v, bool single) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  // The shortest text that reads back as the same value in its own precision.
  std::string s = single ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  // YAML 1.1 floats need a '.' and, with an exponent, its sign: 1e+10 -> 1.0e+10.
  const size_t e = s.find_first_of("eE");
  std::string mantissa = e == std::string::npos ? s : s.substr(0, e);
  std::string exponent = e == std::string::npos ? "" : s.substr(e + 1);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  if (!exponent.empty() && exponent[0] != '-' && exponent[0] != '+') exponent = "+" + exponent;
  return exponent.empty() ? mantissa : mantissa + "e" + exponent;
}

std::string yaml_string(const std::string& s) {
  // YAML is UTF-8 text (its readers refuse other bytes): writers leave out what is not
  // (model::value_is_utf8) and list it; this stops anything that still gets here.
  if (!is_utf8(s)) {
    throw Error(
        ErrorCategory::kLoss,
        fmt::format("text that is not UTF-8 cannot be written as YAML: \"{}\"", decode_utf8(s)));
  }
  return needs_quotes(s) ? quoted(s) : s;
}

std::string yaml_tag(const std::string& tag) {
  if (std::string_view(tag).starts_with(kAsdfTagPrefix))
    return "!" + tag.substr(kAsdfTagPrefix.size());
  if (std::string_view(tag).starts_with("tag:yaml.org,2002:")) return "!!" + tag.substr(18);
  return "!<" + tag + ">";
}

std::string yaml_scalar(const Value& value) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          return yaml_float(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          // Tagged text (a complex number) stays plain when that reads back the same; text
          // that would break the syntax is quoted, which an explicit tag allows.
          return yaml_string(v);
        } else if constexpr (std::is_same_v<T, model::ValueBytes>) {
          return "!!binary " + quoted(encode_base64(v));
        } else {
          return "null";
        }
      },
      value.storage());
}

void emit_value(std::string& out, const Value& value, int indent) {
  const std::string tag = value.tag().empty() ? "" : " " + yaml_tag(value.tag());
  if (is_scalar(value)) {
    out += tag + " " + yaml_scalar(value) + "\n";
    return;
  }
  if (flow_list(value)) {
    out += tag + " [";
    const auto& list = value.as<model::ValueList>();
    for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + yaml_scalar(list[i]);
    out += "]\n";
    return;
  }
  if (value.is<model::ValueList>()) {
    const auto& list = value.as<model::ValueList>();
    if (list.empty()) {
      out += tag + " []\n";
      return;
    }
    out += tag + "\n";
    for (const Value& item : list) {
      out += pad(indent) + "-";
      emit_value(out, item, indent + 2);
    }
    return;
  }
  const auto& map = value.as<model::ValueMap>();
  if (map.empty()) {
    out += tag + " {}\n";
    return;
  }
  out += tag + "\n";
  for (const auto& [k, v] : map) {
    out += pad(indent) + yaml_string(k) + ":";
    emit_value(out, v, indent + 2);
  }
}

}  // namespace dudley::yaml
