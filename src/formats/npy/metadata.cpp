// The .npy header: a Python dict literal of at most a few kilobytes, parsed by a small
// recursive-descent reader of the literals numpy writes (strings, ints, True/False, tuples,
// lists, dicts), depth-limited.
#include <fmt/format.h>

#include <cstring>
#include <unordered_set>

#include "dudley/core/shape.hpp"
#include "dudley/model/numpy_descr.hpp"
#include "dudley/model/value.hpp"
#include "metadata.hpp"

namespace dudley::npy {
namespace {

using model::Value;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMaxDepth = 32;
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

class Literal {
 public:
  Literal(std::string_view text, const std::string& path, uint64_t base)
      : text_(text), path_(path), base_(base) {}

  Value parse() {
    Value v = value(0);
    skip();
    if (at_ < text_.size()) fail("unexpected text after the header's dict");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCategory::kData, "npy header: " + what, Location::binary(path_, base_ + at_));
  }
  void skip() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t'))
      ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  // Items up to `close`, separated by commas (a trailing comma allowed). A tuple or list is
  // a list value; a dict a map (keys strings).
  Value sequence(char close, size_t depth) {
    model::ValueList items;
    while (!eat(close)) {
      items.push_back(value(depth + 1));
      if (!eat(',')) {
        if (!eat(close)) fail(fmt::format("expected ',' or '{}'", close));
        break;
      }
    }
    return Value(std::move(items));
  }

  Value value(size_t depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    skip();
    if (at_ >= text_.size()) fail("ends early");
    const char c = text_[at_];
    if (c == '(' || c == '[') {
      ++at_;
      return sequence(c == '(' ? ')' : ']', depth);
    }
    if (c == '{') {
      ++at_;
      model::ValueMap map;
      std::unordered_set<std::string> seen;
      while (!eat('}')) {
        skip();
        const size_t key_at = at_;
        Value key = value(depth + 1);
        if (!key.is<std::string>()) fail("dict keys must be strings");
        // Python keeps the last of two equal keys, and a reader that kept the first would
        // read other bytes than numpy: a header saying two things is refused.
        if (!seen.insert(key.as<std::string>()).second) {
          at_ = key_at;
          fail(fmt::format("the key '{}' appears twice", key.as<std::string>()));
        }
        if (!eat(':')) fail("expected ':'");
        map.emplace_back(key.as<std::string>(), value(depth + 1));
        if (!eat(',')) {
          if (!eat('}')) fail("expected ',' or '}'");
          break;
        }
      }
      return Value(std::move(map));
    }
    if (c == '\'' || c == '"') {
      ++at_;
      std::string s;
      while (at_ < text_.size() && text_[at_] != c) {
        if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
        s += text_[at_++];
      }
      if (at_ >= text_.size()) fail("a string is not closed");
      ++at_;
      return Value(std::move(s));
    }
    for (const char* word : {"True", "False", "None"}) {
      const size_t n = std::strlen(word);
      if (text_.substr(at_, n) == word) {
        at_ += n;
        return word[0] == 'N' ? Value() : Value(word[0] == 'T');
      }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const bool negative = c == '-';
      if (negative) ++at_;
      uint64_t v = 0;
      size_t digits = 0;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        const auto d = static_cast<uint64_t>(text_[at_] - '0');
        if (v > (UINT64_MAX - d) / 10) fail("an integer beyond 64 bits");
        v = v * 10 + d;
        ++at_;
        ++digits;
      }
      if (at_ < text_.size() && text_[at_] == 'L') ++at_;  // Python 2's long
      if (digits == 0) fail("expected a number");
      if (negative) {
        if (v > static_cast<uint64_t>(INT64_MAX)) fail("an integer beyond 64 bits");
        return Value(-static_cast<int64_t>(v));
      }
      return v > static_cast<uint64_t>(INT64_MAX) ? Value(v) : Value(static_cast<int64_t>(v));
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  std::string_view text_;
  const std::string& path_;
  uint64_t base_;
  size_t at_ = 0;
};

}  // namespace

Header parse_header(std::string_view bytes, const std::string& path) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6))
    throw Error(ErrorCategory::kData, "not an .npy file (no \\x93NUMPY magic)",
                Location::binary(path, 0));
  const auto major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3)
    throw Error(ErrorCategory::kData, fmt::format("npy format version {} is unknown", major),
                Location::binary(path, 6));
  uint64_t length = 0, start = 0;
  if (major == 1) {
    length = static_cast<uint8_t>(bytes[8]) | (uint64_t{static_cast<uint8_t>(bytes[9])} << 8);
    start = 10;
  } else {
    if (bytes.size() < 12)
      throw Error(ErrorCategory::kData, "npy header ends early", Location::binary(path, 8));
    for (int i = 3; i >= 0; --i)
      length = (length << 8) | static_cast<uint8_t>(bytes[8 + static_cast<size_t>(i)]);
    start = 12;
  }
  if (length > kMaxHeaderBytes || start + length > bytes.size())
    throw Error(
        ErrorCategory::kData,
        fmt::format("npy header of {} bytes runs past the file's {} bytes", length, bytes.size()),
        Location::binary(path, 8));
  const Value dict = Literal(bytes.substr(start, length), path, start).parse();
  const Value* descr = dict.find("descr");
  const Value* fortran = dict.find("fortran_order");
  const Value* shape = dict.find("shape");
  if (!dict.is<model::ValueMap>() || !descr || !fortran || !shape || !fortran->is<bool>() ||
      !shape->is<model::ValueList>())
    throw Error(ErrorCategory::kData,
                "npy header: a dict of 'descr', 'fortran_order' and 'shape' is expected",
                Location::binary(path, start));
  Header h;
  try {
    h.dtype = model::dtype_from_numpy_descr(*descr);
  } catch (const Error& e) {
    throw Error(ErrorCategory::kType, "npy header: " + e.message(), Location::file(path));
  }
  h.fortran_order = fortran->as<bool>();
  for (const Value& d : shape->as<model::ValueList>()) {
    if (!d.is<int64_t>() || d.as<int64_t>() < 0)
      throw Error(ErrorCategory::kData, "npy header: shape holds non-negative integers",
                  Location::binary(path, start));
    h.shape.push_back(d.as<int64_t>());
  }
  h.data_offset = start + length;
  return h;
}

std::string make_header(const DType& dtype, const std::vector<int64_t>& shape) {
  if (dtype.kind() == DTypeKind::kVLen || dtype.kind() == DTypeKind::kReference ||
      dtype.kind() == DTypeKind::kPointer || dtype.kind() == DTypeKind::kFixedArray)
    throw Error(ErrorCategory::kType, fmt::format("npy has no descr for {}", dtype.to_string()));
  std::string descr;
  try {
    descr = model::numpy_descr_literal(model::numpy_descr_of(dtype));
  } catch (const Error& e) {
    throw Error(ErrorCategory::kType, "npy: " + e.message());
  }
  std::string dict = fmt::format("{{'descr': {}, 'fortran_order': False, 'shape': ({}{}), }}",
                                 descr, fmt::join(shape, ", "), shape.size() == 1 ? "," : "");
  const bool v2 = dict.size() + 12 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const uint64_t n = dict.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + dict;
}

}  // namespace dudley::npy
