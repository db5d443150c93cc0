#include "dudley/layout/syntax/attribute_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/float16.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/vlen.hpp"
#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {
namespace {

using model::Value;
using model::ValueBytes;
using model::ValueList;
using model::ValueMap;

// A number as written: its text, kept until the type it becomes is known.
struct NumberText {
  std::string_view text;
  size_t at = 0;
};

// The shape a typed value's nested lists make, and its numbers in C order.
struct Numbers {
  std::vector<int64_t> shape;
  std::vector<NumberText> items;
};

class Reader {
 public:
  /// `build`: false only checks the text (the name is still read): no value is made.
  Reader(std::string_view text, size_t max_depth, bool build = true)
      : s_(text), max_depth_(max_depth), build_(build) {}

  bool attribute(ParsedAttribute& out, AttributeTextError& error) {
    try {
      skip();
      out.name = name();
      skip();
      expect(':');
      skip();
      value(out);
      skip();
      if (at_ < s_.size()) fail("text after the value");
      return true;
    } catch (const AttributeTextError& e) {
      error = e;
      return false;
    }
  }

 private:
  [[noreturn]] void fail(std::string message) const {
    throw AttributeTextError{at_, std::move(message)};
  }
  [[noreturn]] void fail_at(size_t at, std::string message) const {
    throw AttributeTextError{at, std::move(message)};
  }

  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t')) ++at_;
  }
  bool peek(char c) const { return at_ < s_.size() && s_[at_] == c; }
  void expect(char c) {
    if (!peek(c)) fail(fmt::format("'{}' expected", c));
    ++at_;
  }
  static bool name_char(char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  }
  std::string_view word() {
    const size_t start = at_;
    while (at_ < s_.size() && name_char(s_[at_], at_ == start)) ++at_;
    return s_.substr(start, at_ - start);
  }

  std::string name() {
    if (peek('"')) return quoted();
    const std::string_view w = word();
    if (w.empty()) fail("an attribute name expected (a Dudley name or a quoted one)");
    return std::string(w);
  }

  // A JSON string: UTF-8, with JSON's escapes (\u and four hex digits; surrogates in pairs).
  std::string quoted() {
    const size_t start = at_;
    expect('"');
    std::string out;
    for (;;) {
      if (at_ >= s_.size()) fail_at(start, "the string has no closing quote");
      const char c = s_[at_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20)
        fail_at(at_ - 1, "a control character in a string (write it as an escape)");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_ >= s_.size()) fail("an escape at the end of the text");
      const char e = s_[at_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t code = hex4();
          if (code >= 0xD800 && code < 0xDC00) {
            if (!(at_ + 1 < s_.size() && s_[at_] == '\\' && s_[at_ + 1] == 'u'))
              fail("a lone surrogate escape");
            at_ += 2;
            const uint32_t low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("a lone surrogate escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            fail("a lone surrogate escape");
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail_at(at_ - 1, fmt::format("unknown escape '\\{}'", e));
      }
    }
    if (!is_utf8(out)) fail_at(start, "the string is not UTF-8 text (write bytes as b\"...\")");
    return out;
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (at_ >= s_.size()) fail("four hex digits expected after \\u");
      const int d = hex_digit(s_[at_]);
      if (d < 0) fail("four hex digits expected after \\u");
      v = v * 16 + static_cast<uint32_t>(d);
      ++at_;
    }
    return v;
  }
  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // b"...": ASCII, with \xNN for any byte and \\ and \" for themselves.
  ValueBytes bytes() {
    const size_t start = at_;
    at_ += 2;  // b"
    ValueBytes out;
    for (;;) {
      if (at_ >= s_.size()) fail_at(start, "the bytes have no closing quote");
      const char c = s_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E)
        fail_at(at_ - 1, "bytes are ASCII text with \\xNN escapes");
      if (c != '\\') {
        out.push_back(static_cast<uint8_t>(c));
        continue;
      }
      if (at_ < s_.size() && (s_[at_] == '\\' || s_[at_] == '"')) {
        out.push_back(static_cast<uint8_t>(s_[at_++]));
        continue;
      }
      if (at_ + 2 >= s_.size() || s_[at_] != 'x' || hex_digit(s_[at_ + 1]) < 0 ||
          hex_digit(s_[at_ + 2]) < 0)
        fail("\\xNN expected");
      out.push_back(static_cast<uint8_t>(hex_digit(s_[at_ + 1]) * 16 + hex_digit(s_[at_ + 2])));
      at_ += 3;
    }
  }

  // A number's text: a sign, digits, fraction, exponent; 0x hex; nan, inf.
  NumberText number_text() {
    const size_t start = at_;
    if (peek('-') || peek('+')) ++at_;
    if (s_.substr(at_, 3) == "nan" || s_.substr(at_, 3) == "inf") {
      at_ += 3;
    } else if (s_.substr(at_, 2) == "0x" || s_.substr(at_, 2) == "0X") {
      at_ += 2;
      while (at_ < s_.size() && hex_digit(s_[at_]) >= 0) ++at_;
    } else {
      while (at_ < s_.size() &&
             ((s_[at_] >= '0' && s_[at_] <= '9') || s_[at_] == '.' || s_[at_] == 'e' ||
              s_[at_] == 'E' ||
              ((s_[at_] == '-' || s_[at_] == '+') && (s_[at_ - 1] == 'e' || s_[at_ - 1] == 'E'))))
        ++at_;
    }
    if (at_ == start || (at_ == start + 1 && (s_[start] == '-' || s_[start] == '+')))
      fail_at(start, "a value expected");
    return {s_.substr(start, at_ - start), start};
  }

  void value(ParsedAttribute& out) {
    // A typed value: an order prefix, or a primitive's name, then a space (or, for text, a
    // length in brackets).
    const size_t start = at_;
    if (peek('<') || peek('>') || peek('|') || (at_ < s_.size() && name_char(s_[at_], true))) {
      ByteOrder order = ByteOrder::kUnspecified;
      if (peek('<') || peek('>') || peek('|')) {
        order = s_[at_] == '<'   ? ByteOrder::kLittle
                : s_[at_] == '>' ? ByteOrder::kBig
                                 : ByteOrder::kUnspecified;
        ++at_;
      }
      const size_t word_at = at_;
      const std::string_view w = word();
      const std::optional<Primitive> p = primitive_from_name(w);
      if ((p == Primitive::S1 || p == Primitive::U1) && s_[start] != '<' && s_[start] != '>' &&
          (peek('[') || peek(' ') || peek('\t'))) {
        text_typed(*p, out);
        return;
      }
      if (p && at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t')) {
        skip();
        out.value = typed(*p, order, word_at);
        return;
      }
      if (order != ByteOrder::kUnspecified || s_[start] == '|') {
        fail_at(word_at, "a number type (i1 ... u8, f2, f4, f8, c4, c8, c16, b1) expected");
      }
      at_ = start;  // a keyword or a bytes literal: plain
    }
    out.value = plain(0);
  }

  // `S1[8] "K"`, `S1 "K"`, `U1[8] ["a", "b"]`: text and the type it is stored as (a length:
  // fixed-length strings; none: variable-length ones). One text is a string with its type
  // beside it (as model::Attributes::set_text keeps it); lists of them are an array.
  void text_typed(Primitive p, ParsedAttribute& out) {
    const TextEncoding encoding = p == Primitive::S1 ? TextEncoding::kAscii : TextEncoding::kUtf8;
    std::optional<uint64_t> length;
    if (peek('[')) {
      ++at_;
      skip();
      if (!(at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9'))
        fail("a text length is a positive integer");
      const NumberText n = number_text();
      uint64_t v = 0;
      const auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
      if (ec != std::errc() || end != n.text.data() + n.text.size() || v == 0)
        fail_at(n.at, "a text length is a positive integer");
      length = v;
      skip();
      expect(']');
    }
    if (!peek(' ') && !peek('\t')) fail("a space, then the text, expected after its type");
    skip();
    const size_t value_at = at_;
    std::vector<std::string> items;
    std::vector<int64_t> shape;
    const bool array = peek('[');
    if (array) {
      shape = rectangular(
          0, [&] { return !peek('['); }, [&] { items.push_back(one_text(encoding)); });
    } else {
      items.push_back(one_text(encoding));
    }
    uint64_t longest = 0;
    for (const std::string& t : items) longest = std::max<uint64_t>(longest, t.size());
    if (length && longest > *length)
      fail_at(value_at, fmt::format("a text is longer than its type's {} bytes", *length));
    // The length is claimed, not given: what it costs stays in proportion to the text.
    if (length && items.size() * *length > (uint64_t{1} << 20) + 64 * s_.size())
      fail_at(value_at, "the texts' lengths add up to more than 1 MiB");
    if (!build_) return;
    if (!array) {
      out.value = Value(std::move(items[0]));
      if (length) {
        out.text_type = DType::string(encoding, *length);
      } else if (encoding == TextEncoding::kAscii) {
        out.text_type = DType::vlen(DType::text(encoding));
      }
      return;
    }
    if (length) {
      NDArray a(DType::string(encoding, *length), Shape(shape));
      auto* to = static_cast<char*>(a.mutable_data());
      if (a.byte_size()) std::memset(to, 0, a.byte_size());
      for (size_t i = 0; i < items.size(); ++i) {
        // NUL-padded to its length, never NUL-terminated (a text may fill it).
        std::copy(items[i].begin(), items[i].end(), to + i * *length);
      }
      out.value = std::move(a);
      return;
    }
    VLenArrayBuilder built(DType::vlen(DType::text(encoding)), items.size());
    for (const std::string& t : items) built.append(t.data(), t.size());
    out.value = built.finish(Shape(shape));
  }

  // "..." or b"..." (U1 text must be UTF-8; S1 text may be any bytes).
  std::string one_text(TextEncoding encoding) {
    const size_t at = at_;
    if (peek('"')) return quoted();
    if (s_.substr(at_, 2) != "b\"") fail("text expected (\"...\" or b\"...\")");
    const ValueBytes b = bytes();
    std::string text(b.begin(), b.end());
    if (encoding == TextEncoding::kUtf8 && !is_utf8(text))
      fail_at(at, "U1 text is UTF-8 (S1 holds other bytes)");
    return text;
  }

  // `!<tag:stsci.edu:asdf/unit/unit-1.0.0>`: a YAML tag, verbatim, with %XX for a byte that
  // is not printable ASCII (or is '%' or '>').
  std::string tag() {
    const size_t start = at_;
    if (s_.substr(at_, 2) != "!<") fail("a tag is written !<...>");
    at_ += 2;
    std::string out;
    for (;;) {
      if (at_ >= s_.size()) fail_at(start, "the tag has no closing '>'");
      const char c = s_[at_];
      if (c == '>') break;
      if (c == '%') {
        if (at_ + 2 >= s_.size() || hex_digit(s_[at_ + 1]) < 0 || hex_digit(s_[at_ + 2]) < 0)
          fail("%XX expected in a tag");
        out.push_back(static_cast<char>(hex_digit(s_[at_ + 1]) * 16 + hex_digit(s_[at_ + 2])));
        at_ += 3;
        continue;
      }
      if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) > 0x7E)
        fail("a tag is printable ASCII (other bytes as %XX)");
      out.push_back(c);
      ++at_;
    }
    ++at_;
    if (out.empty()) fail_at(start, "an empty tag");
    return out;
  }

  Value plain(size_t depth) {
    if (depth > max_depth_) fail(fmt::format("lists and maps nest more than {} deep", max_depth_));
    if (peek('!')) {
      std::string t = tag();
      if (!peek(' ') && !peek('\t')) fail("a space, then the value, expected after a tag");
      skip();
      if (peek('!')) fail("a value has one tag");
      Value v = plain(depth);
      v.with_tag(std::move(t));
      return v;
    }
    if (peek('"')) return quoted();
    if (s_.substr(at_, 2) == "b\"") return bytes();
    if (peek('[')) {
      ++at_;
      ValueList items;
      skip();
      if (peek(']')) {
        ++at_;
        return items;
      }
      for (;;) {
        skip();
        items.push_back(plain(depth + 1));
        skip();
        if (peek(']')) {
          ++at_;
          return items;
        }
        expect(',');
      }
    }
    if (peek('{')) {
      ++at_;
      ValueMap members;
      std::unordered_set<std::string> keys;  // a map of many keys is checked in linear time
      skip();
      if (peek('}')) {
        ++at_;
        return members;
      }
      for (;;) {
        skip();
        const size_t key_at = at_;
        std::string key = name();
        if (!keys.insert(key).second) fail_at(key_at, fmt::format("\"{}\" twice in one map", key));
        skip();
        expect(':');
        skip();
        members.emplace_back(std::move(key), plain(depth + 1));
        skip();
        if (peek('}')) {
          ++at_;
          return members;
        }
        expect(',');
      }
    }
    for (const auto& [word, v] : {std::pair<std::string_view, Value>{"true", Value(true)},
                                  {"false", Value(false)},
                                  {"null", Value()}}) {
      if (s_.substr(at_, word.size()) == word &&
          (at_ + word.size() == s_.size() || !name_char(s_[at_ + word.size()], false))) {
        at_ += word.size();
        return v;
      }
    }
    if (at_ < s_.size() && name_char(s_[at_], true) && s_.substr(at_, 3) != "nan" &&
        s_.substr(at_, 3) != "inf") {
      const size_t word_at = at_;
      const std::string_view w = word();
      fail_at(word_at, fmt::format("'{}' is not a value (text is quoted: \"{}\")", w, w));
    }
    const NumberText n = number_text();
    return untyped_number(n);
  }

  Value untyped_number(const NumberText& n) {
    std::string_view t = n.text;
    const bool negative = !t.empty() && t[0] == '-';
    if (t.find_first_of(".eEn") == std::string_view::npos &&
        t.find("0x") == std::string_view::npos) {
      if (negative) {
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec == std::errc() && end == t.data() + t.size()) return Value(v);
      } else {
        if (!t.empty() && t[0] == '+') t.remove_prefix(1);
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec == std::errc() && end == t.data() + t.size()) {
          if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return Value(static_cast<int64_t>(v));
          return Value(v);
        }
      }
      fail_at(n.at,
              fmt::format("{} is not a 64-bit integer (give it a type: f8 {})", n.text, n.text));
    }
    const std::optional<double> d = to_double(n.text);
    if (!d) fail_at(n.at, fmt::format("{} is not a number", n.text));
    // A JSON-like value has one NaN (as JSON and YAML readers give it): "-nan" is it too.
    if (std::isnan(*d)) return Value(std::numeric_limits<double>::quiet_NaN());
    return Value(*d);
  }

  static std::optional<double> to_double(std::string_view t) {
    bool negative = false;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
      negative = t[0] == '-';
      t.remove_prefix(1);
    }
    double v = 0;
    if (t == "nan") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (t == "inf") {
      v = std::numeric_limits<double>::infinity();
    } else {
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    }
    return negative ? -v : v;
  }

  // Nested lists, rectangular (an array's rows are of one length), of the elements
  // `element` reads where `is_element` says one stands: the shape of what was read.
  template <typename IsElement, typename Element>
  std::vector<int64_t> rectangular(size_t depth, const IsElement& is_element,
                                   const Element& element) {
    if (depth > max_depth_) fail(fmt::format("lists nest more than {} deep", max_depth_));
    if (is_element()) {
      element();
      return {};
    }
    ++at_;  // '['
    skip();
    std::vector<int64_t> inner;
    int64_t count = 0;
    if (!peek(']')) {
      for (;;) {
        skip();
        const size_t item_at = at_;
        std::vector<int64_t> shape = rectangular(depth + 1, is_element, element);
        if (count == 0) {
          inner = std::move(shape);
        } else if (shape != inner) {
          fail_at(item_at, "the lists are not rectangular (an array's rows are of one length)");
        }
        ++count;
        skip();
        if (peek(']')) break;
        expect(',');
      }
    }
    ++at_;
    inner.insert(inner.begin(), count);
    return inner;
  }

  // Nested lists of numbers (pairs [re, im] for complex): their shape; the numbers are
  // appended to `out` in C order.
  std::vector<int64_t> numbers(Numbers& out, bool pairs) {
    auto is_element = [&] { return !peek('[') || (pairs && is_pair_next()); };
    auto element = [&] {
      if (!pairs) {
        out.items.push_back(bools_ ? bool_text() : number_text());
        return;
      }
      // One complex element.
      const size_t pair_at = at_;
      if (!peek('[')) fail("a complex element is a pair [real, imaginary]");
      ++at_;
      skip();
      out.items.push_back(number_text());
      skip();
      expect(',');
      skip();
      out.items.push_back(number_text());
      skip();
      if (!peek(']')) fail_at(pair_at, "a complex element is a pair [real, imaginary]");
      ++at_;
    };
    return rectangular(0, is_element, element);
  }
  // Whether a '[' here opens a complex pair (two numbers) rather than a list of elements.
  bool is_pair_next() const {
    size_t i = at_ + 1;
    while (i < s_.size() && s_[i] != ']' && s_[i] != '[') ++i;
    return i < s_.size() && s_[i] == ']';
  }

  NDArray typed(Primitive p, ByteOrder order, size_t type_at) {
    if (primitive_is_text(p) || p == Primitive::p4 || p == Primitive::p8) {
      fail_at(type_at,
              fmt::format("{} values are not attributes (numbers and b1 are)", primitive_name(p)));
    }
    const bool complex = p == Primitive::c4 || p == Primitive::c8 || p == Primitive::c16;
    bools_ = p == Primitive::b1;
    Numbers& parsed = numbers_;  // reused: a typed value holds no typed value inside
    parsed.items.clear();
    parsed.shape.clear();
    if (peek('[')) {
      parsed.shape = numbers(parsed, complex);  // a lone pair is a 0-d complex
    } else if (complex) {
      fail("a complex value is a pair [real, imaginary]");
    } else {
      parsed.items.push_back(p == Primitive::b1 ? bool_text() : number_text());
    }
    const DType stored =
        primitive_dtype(p, order == ByteOrder::kUnspecified ? native_byte_order() : order);
    if (!build_) {  // each number checked against its type, nothing kept
      std::byte scratch[16];
      const size_t width = complex ? stored.size() / 2 : stored.size();
      for (const NumberText& n : parsed.items) store(n, p, width, scratch);
      return NDArray();
    }
    NDArray a(stored, Shape(parsed.shape));
    auto* out = static_cast<std::byte*>(a.mutable_data());
    const size_t width = complex ? stored.size() / 2 : stored.size();
    for (size_t i = 0; i < parsed.items.size(); ++i) {
      store(parsed.items[i], p, width, out + i * width);
    }
    if (stored.needs_swap()) swap_units(out, parsed.items.size(), static_cast<unsigned>(width));
    return a;
  }

  NumberText bool_text() {
    const size_t start = at_;
    for (std::string_view w : {"true", "false"}) {
      if (s_.substr(at_, w.size()) == w) {
        at_ += w.size();
        return {w, start};
      }
    }
    return number_text();
  }

  // One number into `width` native bytes as primitive `p` (a complex's part for c*).
  void store(const NumberText& n, Primitive p, size_t width, std::byte* at) const {
    const std::string_view t = n.text;
    auto bits_of = [&]() -> std::optional<uint64_t> {
      if (t.size() < 3 || (t.substr(0, 2) != "0x" && t.substr(0, 2) != "0X")) return std::nullopt;
      uint64_t v = 0;
      const auto [end, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
      if (ec != std::errc() || end != t.data() + t.size())
        fail_at(n.at, fmt::format("{} is not hex bits", t));
      if (width < 8 && v >> (8 * width) != 0)
        fail_at(n.at, fmt::format("{} has more than {} bytes of bits", t, width));
      return v;
    };
    auto put = [&](uint64_t v) {
      for (size_t i = 0; i < width; ++i) {
        const size_t shift = std::endian::native == std::endian::little ? i : width - 1 - i;
        at[i] = static_cast<std::byte>(v >> (8 * shift));
      }
    };
    switch (p) {
      case Primitive::b1:
        if (t == "true" || t == "1") return put(1);
        if (t == "false" || t == "0") return put(0);
        fail_at(n.at, fmt::format("{} is not true or false", t));
      case Primitive::f2:
      case Primitive::f4:
      case Primitive::f8:
      case Primitive::c4:
      case Primitive::c8:
      case Primitive::c16: {
        if (const std::optional<uint64_t> bits = bits_of()) return put(*bits);
        const std::optional<double> d = float_value(t, width);
        if (!d) fail_at(n.at, fmt::format("{} is not a number", t));
        if (width == 2) return put(float_to_half(static_cast<float>(*d)));
        if (width == 4) return put(std::bit_cast<uint32_t>(static_cast<float>(*d)));
        return put(std::bit_cast<uint64_t>(*d));
      }
      default:
        break;
    }
    if (const std::optional<uint64_t> bits = bits_of()) return put(*bits);
    const bool is_signed =
        p == Primitive::i1 || p == Primitive::i2 || p == Primitive::i4 || p == Primitive::i8;
    const int bits = static_cast<int>(width * 8);
    if (is_signed) {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(t.data() + (t[0] == '+'), t.data() + t.size(), v);
      const int64_t low =
          bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
      const int64_t high =
          bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
      if (ec != std::errc() || end != t.data() + t.size() || v < low || v > high)
        fail_at(n.at, fmt::format("{} is not an integer of {}", t, primitive_name(p)));
      return put(static_cast<uint64_t>(v));
    }
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data() + (t[0] == '+'), t.data() + t.size(), v);
    const uint64_t high =
        bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
    if (ec != std::errc() || end != t.data() + t.size() || v > high)
      fail_at(n.at, fmt::format("{} is not an integer of {}", t, primitive_name(p)));
    put(v);
  }

  // A float's text rounded once to the type: float32 from its text, not through double.
  static std::optional<double> float_value(std::string_view t, size_t width) {
    if (width != 4) return to_double(t);
    bool negative = false;
    std::string_view u = t;
    if (!u.empty() && (u[0] == '-' || u[0] == '+')) {
      negative = u[0] == '-';
      u.remove_prefix(1);
    }
    if (u == "nan" || u == "inf") return to_double(t);
    float f = 0;
    const auto [end, ec] = std::from_chars(u.data(), u.data() + u.size(), f);
    if ((ec != std::errc() && ec != std::errc::result_out_of_range) || end != u.data() + u.size())
      return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
      const std::optional<double> d = to_double(u);
      if (!d) return std::nullopt;
      f = static_cast<float>(*d);
    }
    return static_cast<double>(negative ? -f : f);
  }

  std::string_view s_;
  size_t at_ = 0;
  size_t max_depth_;
  bool build_ = true;   // make the value (else only check the text)
  Numbers numbers_;     // a typed value's numbers, as read
  bool bools_ = false;  // a b1 value is being read: true and false are its numbers
};

// ---- writing ----

bool plain_name(const std::string& name) {
  if (name.empty() || !is_dudley_name(name)) return false;
  return name != "true" && name != "false" && name != "null" && name != "nan" && name != "inf";
}

void put_quoted(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void put_name(std::string& out, const std::string& name) {
  if (plain_name(name)) {
    out += name;
  } else {
    put_quoted(out, name);
  }
}

// A float's text says it is one: "2.0", not "2" (as numpy and JSON print floats).
std::string with_point(std::string t) {
  if (t.find_first_of(".en") == std::string::npos) t += ".0";
  return t;
}

std::string double_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return with_point(fmt::format("{}", v));
}

void put_tag(std::string& out, const std::string& tag) {
  out += "!<";
  for (const char c : tag) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u > 0x7E || c == '%' || c == '>') {
      out += fmt::format("%{:02X}", u);
    } else {
      out.push_back(c);
    }
  }
  out += "> ";
}

void put_bytes(std::string& out, std::string_view bytes) {
  out += "b\"";
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (b < 0x20 || b > 0x7E) {
      out += fmt::format("\\x{:02x}", b);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

// Text as a string when it is UTF-8, else as its bytes.
void put_text(std::string& out, std::string_view text) {
  if (is_utf8(text)) {
    put_quoted(out, text);
  } else {
    put_bytes(out, text);
  }
}

void put_value(std::string& out, const Value& v) {
  if (!v.tag().empty()) put_tag(out, v.tag());
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out += "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          out += x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>) {
          out += fmt::format("{}", x);
        } else if constexpr (std::is_same_v<T, double>) {
          out += double_text(x);  // a JSON-like value's NaN is the one NaN
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (!is_utf8(x)) {
            throw Error(ErrorCategory::kType,
                        "text that is not UTF-8 (bytes are written as b\"...\")");
          }
          put_quoted(out, x);
        } else if constexpr (std::is_same_v<T, ValueBytes>) {
          put_bytes(out, std::string_view(reinterpret_cast<const char*>(x.data()), x.size()));
        } else if constexpr (std::is_same_v<T, ValueList>) {
          out.push_back('[');
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) out += ", ";
            put_value(out, x[i]);
          }
          out.push_back(']');
        } else {
          out.push_back('{');
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) out += ", ";
            put_name(out, x[i].first);
            out += ": ";
            put_value(out, x[i].second);
          }
          out.push_back('}');
        }
      },
      v.storage());
}

// One element part (a number of `width` bytes, native order) as text that reads back the same.
std::string element_text(const std::byte* at, const DType& part) {
  const size_t width = part.size();
  uint64_t bits = 0;
  for (size_t i = 0; i < width; ++i) {
    const size_t shift = std::endian::native == std::endian::little ? i : width - 1 - i;
    bits |= static_cast<uint64_t>(at[i]) << (8 * shift);
  }
  switch (part.kind()) {
    case DTypeKind::kBool:
      if (bits > 1) return fmt::format("0x{:02x}", bits);
      return bits ? "true" : "false";
    case DTypeKind::kInt: {
      const int shift = 64 - static_cast<int>(width * 8);
      return fmt::format("{}", static_cast<int64_t>(bits << shift) >> shift);
    }
    case DTypeKind::kUInt:
      return fmt::format("{}", bits);
    case DTypeKind::kFloat: {
      if (width == 2) {
        const float f = half_to_float(static_cast<uint16_t>(bits));
        if (std::isnan(f)) return bits == 0x7E00 ? "nan" : fmt::format("0x{:04x}", bits);
        if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
        return with_point(half_shortest_text(static_cast<uint16_t>(bits)));
      }
      if (width == 4) {
        const float f = std::bit_cast<float>(static_cast<uint32_t>(bits));
        if (std::isnan(f)) return bits == 0x7FC00000 ? "nan" : fmt::format("0x{:08x}", bits);
        if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
        return with_point(fmt::format("{}", f));
      }
      const double d = std::bit_cast<double>(bits);
      if (std::isnan(d))
        return bits == 0x7FF8000000000000u ? "nan" : fmt::format("0x{:016x}", bits);
      return double_text(d);
    }
    default:
      throw Error(ErrorCategory::kType, fmt::format("{} is not a number", part.to_string()));
  }
}

// An array's elements as lists nested by `shape`, in C order (`put(i)` writes element i;
// a 0-d array is its one element). Recursion as deep as the shape's rank (at most 64).
template <typename Put>
void put_nested(std::string& out, const std::vector<int64_t>& shape, const Put& put) {
  uint64_t next = 0;
  auto emit = [&](auto&& self, size_t dim) -> void {
    if (dim == shape.size()) {
      put(next++);
      return;
    }
    out.push_back('[');
    for (int64_t i = 0; i < shape[dim]; ++i) {
      if (i) out += ", ";
      self(self, dim + 1);
    }
    out.push_back(']');
  };
  emit(emit, 0);
}

// "S1" or "U1" for text of one-byte units; nullopt for other encodings.
std::optional<std::string_view> text_type_name(TextEncoding encoding) {
  if (encoding == TextEncoding::kAscii) return "S1";
  if (encoding == TextEncoding::kUtf8) return "U1";
  return std::nullopt;
}

[[noreturn]] void no_text_type(const DType& t) {
  throw Error(ErrorCategory::kType,
              fmt::format("text of {} (a layout's typed text is S1 or U1: one byte a unit)",
                          t.to_string()));
}

// Text stored as `stored` (fixed-length or variable-length): `S1[8] "K"`, `S1 "K"`; text of
// variable-length UTF-8 is a plain string.
void put_stored_text(std::string& out, const std::string& text, const DType& stored) {
  if (stored.kind() == DTypeKind::kText) {
    const auto name = text_type_name(stored.encoding());
    if (!name) no_text_type(stored);
    // Longer text than its stored length (a value set since) keeps all of itself.
    out += fmt::format("{}[{}] ", *name, std::max<uint64_t>({text.size(), stored.size(), 1}));
  } else if (stored.kind() == DTypeKind::kVLen && stored.base().kind() == DTypeKind::kText) {
    const auto name = text_type_name(stored.base().encoding());
    if (!name) no_text_type(stored);
    if (*name == "S1") out += "S1 ";
  }
  if (stored.encoding() == TextEncoding::kUtf8 && !is_utf8(text) &&
      stored.kind() == DTypeKind::kText) {
    throw Error(ErrorCategory::kType, "UTF-8 text that is not UTF-8");
  }
  put_text(out, text);
}

// An array of text: `S1[8] ["a", "b"]` (fixed-length, NUL-padded), `U1 ["a", "b"]`
// (variable-length). Whether `t` is such text.
bool is_text_array(const DType& t) {
  return t.kind() == DTypeKind::kText ||
         (t.kind() == DTypeKind::kVLen && t.base().kind() == DTypeKind::kText &&
          t.base().text_length() == 1);
}

void put_text_array(std::string& out, const NDArray& a) {
  const DType& t = a.dtype();
  const bool fixed = t.kind() == DTypeKind::kText;
  const auto name = text_type_name(fixed ? t.encoding() : t.base().encoding());
  if (!name || (fixed && t.unit_size() != 1)) no_text_type(t);
  std::vector<std::string_view> texts;
  const NDArray dense = a.is_c_contiguous() ? a : a.to_native();
  std::vector<VLenElement> elements;
  if (fixed) {
    const auto* base = static_cast<const char*>(dense.data());
    for (uint64_t i = 0; i < dense.element_count(); ++i) {
      std::string_view one(base + i * t.size(), t.size());
      while (!one.empty() && one.back() == '\0') one.remove_suffix(1);  // the padding
      texts.push_back(one);
    }
    out += fmt::format("{}[{}] ", *name, t.size());
  } else {
    elements = vlen_elements(a);
    for (const VLenElement& e : elements) texts.push_back(e.bytes(1));
    out += fmt::format("{} ", *name);
  }
  for (const std::string_view one : texts) {
    if (*name == "U1" && !is_utf8(one))
      throw Error(ErrorCategory::kType, "UTF-8 text that is not UTF-8");
  }
  put_nested(out, a.shape().dims(), [&](uint64_t i) { put_text(out, texts[i]); });
}

}  // namespace

bool check_attribute(std::string_view text, std::string& name, AttributeTextError& error,
                     size_t max_depth) {
  ParsedAttribute out;
  if (!Reader(text, max_depth, false).attribute(out, error)) return false;
  name = std::move(out.name);
  return true;
}

bool parse_attribute(std::string_view text, ParsedAttribute& out, AttributeTextError& error,
                     size_t max_depth) {
  return Reader(text, max_depth).attribute(out, error);
}

std::string attribute_text(const std::string& name, const model::AttributeValue& value,
                           const DType* stored_text) {
  std::string out;
  put_name(out, name);
  out += ": ";
  if (const Value* v = std::get_if<Value>(&value)) {
    if (stored_text && v->is<std::string>() && v->tag().empty()) {
      put_stored_text(out, v->as<std::string>(), *stored_text);
    } else {
      put_value(out, *v);
    }
    return out;
  }
  if (is_text_array(std::get<NDArray>(value).dtype())) {
    if (std::get<NDArray>(value).shape().rank() > 1 &&
        std::get<NDArray>(value).element_count() == 0) {
      throw Error(ErrorCategory::kType, "an empty attribute array of more than one dimension");
    }
    put_text_array(out, std::get<NDArray>(value));
    return out;
  }
  const NDArray native = std::get<NDArray>(value).to_native();
  const DType& t = std::get<NDArray>(value).dtype();
  const std::optional<Primitive> p = primitive_for(t);
  if (!p || primitive_is_text(*p) || *p == Primitive::p4 || *p == Primitive::p8 ||
      t.kind() == DTypeKind::kEnum) {
    throw Error(ErrorCategory::kType,
                fmt::format("an attribute of {} (a layout's typed attributes are numbers, "
                            "booleans and text)",
                            t.to_string()));
  }
  const std::vector<int64_t>& shape = native.shape().dims();
  if (shape.size() > 1 && native.element_count() == 0) {
    throw Error(ErrorCategory::kType, "an empty attribute array of more than one dimension");
  }
  if (t.size() > 1) out += t.byte_order() == ByteOrder::kBig ? ">" : "<";
  out += primitive_name(*p);
  out += ' ';
  const bool complex = t.kind() == DTypeKind::kComplex;
  const DType part = complex ? DType::float_(static_cast<unsigned>(t.size() / 2)) : t;
  const auto* data = static_cast<const std::byte*>(native.data());
  auto element = [&](uint64_t i) {
    const std::byte* at = data + i * t.size();
    if (!complex) return element_text(at, part);
    return "[" + element_text(at, part) + ", " + element_text(at + part.size(), part) + "]";
  };
  put_nested(out, shape, [&](uint64_t i) { out += element(i); });
  return out;
}

}  // namespace dudley::layout

namespace dudley::layout {
namespace {

// Values nest at most model::kMaxValueDepth levels (the parser refuses deeper ones), so the
// recursion is bounded.
bool same_value(const model::Value& a, const model::Value& b) {
  if (a.tag() != b.tag() || a.storage().index() != b.storage().index()) return false;
  if (a.is<double>()) {
    return std::bit_cast<uint64_t>(a.as<double>()) == std::bit_cast<uint64_t>(b.as<double>());
  }
  if (a.is<ValueList>()) {
    const ValueList& x = a.as<ValueList>();
    const ValueList& y = b.as<ValueList>();
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_value);
  }
  if (a.is<ValueMap>()) {
    const ValueMap& x = a.as<ValueMap>();
    const ValueMap& y = b.as<ValueMap>();
    return x.size() == y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](const auto& p, const auto& q) {
             return p.first == q.first && same_value(p.second, q.second);
           });
  }
  return a == b;
}

bool same_array(const NDArray& a, const NDArray& b) {
  if (!(a.dtype() == b.dtype()) || !(a.shape() == b.shape())) return false;
  if (a.dtype().kind() == DTypeKind::kVLen) {  // the elements, not where they are
    const std::vector<VLenElement> x = vlen_elements(a);
    const std::vector<VLenElement> y = vlen_elements(b);
    const uint64_t unit = a.dtype().base().size();
    return std::equal(
        x.begin(), x.end(), y.begin(), y.end(),
        [&](const VLenElement& p, const VLenElement& q) { return p.bytes(unit) == q.bytes(unit); });
  }
  const NDArray x = a.to_native();
  const NDArray y = b.to_native();
  return x.byte_size() == y.byte_size() &&
         (x.byte_size() == 0 || std::memcmp(x.data(), y.data(), x.byte_size()) == 0);
}

}  // namespace

bool same_attribute_value(const model::AttributeValue& a, const model::AttributeValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<model::Value>(&a)) {
    return same_value(*x, std::get<model::Value>(b));
  }
  return same_array(std::get<NDArray>(a), std::get<NDArray>(b));
}

bool operator==(const ParsedAttribute& a, const ParsedAttribute& b) {
  return a.name == b.name && a.text_type == b.text_type && same_attribute_value(a.value, b.value);
}

}  // namespace dudley::layout
