#include "dudley/core/text.hpp"

#include <algorithm>
#include <cstring>

namespace dudley {

namespace {
constexpr uint32_t kReplacement = 0xFFFD;
// cp1252's 0x80-0x9F; 0 marks the five bytes it leaves undefined.
constexpr uint16_t kCp1252High[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

template <typename Unit>
size_t trimmed(const Unit* units, size_t count) {
  while (count > 0 && units[count - 1] == 0) --count;
  return count;
}
}  // namespace

void append_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The lead byte gives the length and the range the second byte may take (RFC 3629's
    // table: it rules out overlong forms, surrogates and code points past U+10FFFF).
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (n - i < length || p[i + 1] < low || p[i + 1] > high) return false;
    for (size_t k = 2; k < length; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

std::optional<std::u32string> utf8_to_utf32(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t extra = c < 0x80         ? 0
                         : (c >> 5) == 6  ? 1
                         : (c >> 4) == 14 ? 2
                         : (c >> 3) == 30 ? 3
                                          : 4;
    if (extra == 4 || i + extra >= s.size() + (extra == 0 ? 1 : 0)) return std::nullopt;
    uint32_t cp = extra == 0   ? c
                  : extra == 1 ? (c & 0x1Fu)
                  : extra == 2 ? (c & 0x0Fu)
                               : (c & 0x07u);
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 2) return std::nullopt;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    out += static_cast<char32_t>(cp);
    i += 1 + extra;
  }
  return out;
}

namespace {
constexpr char kBase64Digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

std::string encode_base64(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = uint32_t{bytes[i]} << 16 |
                       (i + 1 < bytes.size() ? uint32_t{bytes[i + 1]} << 8 : 0) |
                       (i + 2 < bytes.size() ? uint32_t{bytes[i + 2]} : 0);
    out += kBase64Digits[n >> 18];
    out += kBase64Digits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Digits[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Digits[n & 63] : '=';
  }
  return out;
}

std::optional<std::vector<uint8_t>> decode_base64(std::string_view text) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    const char* at = std::strchr(kBase64Digits, c);
    if (c == '\0' || !at || padding) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(at - kBase64Digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

std::string decode_s1(std::string_view bytes) {
  bytes = bytes.substr(0, trimmed(bytes.data(), bytes.size()));
  bool latin1 = false;
  for (unsigned char c : bytes) {
    if (c >= 0x80 && c <= 0x9F && kCp1252High[c - 0x80] == 0) latin1 = true;
  }
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    append_utf8(out, !latin1 && c >= 0x80 && c <= 0x9F ? kCp1252High[c - 0x80] : c);
  }
  return out;
}

std::string decode_utf8(std::string_view bytes) {
  bytes = bytes.substr(0, trimmed(bytes.data(), bytes.size()));
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    auto c = static_cast<unsigned char>(bytes[i]);
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    bool ok = n > 0 && i + n <= bytes.size();
    for (size_t k = 1; ok && k < n; ++k) {
      auto d = static_cast<unsigned char>(bytes[i + k]);
      ok = (d & 0xC0) == 0x80;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (!ok || cp < kMin[n]) {
      append_utf8(out, kReplacement);
      ++i;
      continue;
    }
    append_utf8(out, cp);
    i += n;
  }
  return out;
}

std::string decode_utf16(const uint16_t* units, size_t count) {
  count = trimmed(units, count);
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    uint32_t u = units[i];
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < count && units[i + 1] >= 0xDC00 &&
        units[i + 1] <= 0xDFFF) {
      append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00u));
      ++i;
    } else {
      append_utf8(out, u);  // a lone surrogate becomes U+FFFD
    }
  }
  return out;
}

std::string decode_utf32(const uint32_t* units, size_t count) {
  count = trimmed(units, count);
  std::string out;
  for (size_t i = 0; i < count; ++i) append_utf8(out, units[i]);
  return out;
}

namespace {

struct EscapeRules {
  bool keep_line_ends = false;  ///< "\n" and "\t" kept (a report of several lines)
  char quote = 0;               ///< this character escaped too ("\'")
  bool whole = false;           ///< backslashes and bytes that are not UTF-8 escaped too
};

// The length of the UTF-8 sequence at text[i] (0: a byte that starts none).
size_t sequence_at(std::string_view text, size_t i) {
  for (size_t n = 2; n <= 4; ++n) {
    if (i + n <= text.size() && is_utf8(text.substr(i, n))) return n;
  }
  return 0;
}

std::string escape(std::string_view text, const EscapeRules& rules) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto control = [&](unsigned char c) {
    return (c < 0x20 || c == 0x7F) && !(rules.keep_line_ends && (c == '\n' || c == '\t'));
  };
  // C1 controls (U+0080-U+009F, "\xC2\x80".."\xC2\x9F" in UTF-8): some terminals take
  // U+009B as the start of an escape sequence, as ESC [.
  auto c1 = [&](size_t i) {
    return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
           static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
           static_cast<unsigned char>(text[i + 1]) <= 0x9F;
  };
  // Characters that reorder the text shown around them (U+200E/F, U+202A-U+202E,
  // U+2066-U+2069): a name holding one can make a message read as something else.
  auto bidi = [&](size_t i) {
    if (i + 3 > text.size() || static_cast<unsigned char>(text[i]) != 0xE2) return false;
    const auto b1 = static_cast<unsigned char>(text[i + 1]);
    const auto b2 = static_cast<unsigned char>(text[i + 2]);
    return (b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE))) ||
           (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);
  };
  // A byte that starts no UTF-8 sequence and is escaped: any, with `whole`; otherwise those
  // a terminal reading 8-bit controls takes as C1 (0x9B is CSI).
  auto stray = [&](size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    return c >= 0x80 && (rules.whole || c <= 0x9F) && sequence_at(text, i) == 0;
  };
  auto special = [&](size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (control(c) || c1(i) || bidi(i) || stray(i)) return true;
    return rules.whole &&
           (c == '\\' || (rules.quote != 0 && c == static_cast<unsigned char>(rules.quote)));
  };
  bool any = false;
  for (size_t i = 0; i < text.size() && !any; ++i) any = special(i);
  if (!any) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c1(i)) {
      const auto code = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[code >> 4];
      out += kHex[code & 15];
    } else if (bidi(i)) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      const auto b2 = static_cast<unsigned char>(text[i + 2]);
      const unsigned code = 0x2000 | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 15];
      i += 2;
    } else if (c >= 0x80) {
      const size_t n = sequence_at(text, i);
      if (n > 0) {
        out.append(text.substr(i, n));
        i += n - 1;
      } else if (stray(i)) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);  // not UTF-8, shown as it is (Latin-1 text)
      }
    } else if (!special(i)) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\' || (rules.quote != 0 && c == static_cast<unsigned char>(rules.quote))) {
      out += '\\';
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string escape_controls(std::string_view text, bool keep_line_ends) {
  return escape(text, {keep_line_ends, 0, false});
}

std::string escape_text(std::string_view text, char quote) {
  return escape(text, {false, quote, true});
}

}  // namespace dudley
