#include "fill_value.hpp"

#include <fmt/format.h>

#include <bit>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/float16.hpp"
#include "dudley/core/text.hpp"
#include "dudley/model/text_strings.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
  throw Error(ErrorCategory::kData, fmt::format("fill_value {}", what), Location::file(where));
}

template <typename T>
void append(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

template <typename T>
T element(const std::vector<std::byte>& bytes, size_t offset = 0) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// The canonical NaN of each width ("NaN": sign 0, the mantissa's top bit alone).
constexpr uint16_t kNan16 = 0x7e00;
constexpr uint32_t kNan32 = 0x7fc00000;
constexpr uint64_t kNan64 = 0x7ff8000000000000;

// "0x" and exactly two hex digits per byte (our reading of "0xYYYYYYYY").
std::optional<uint64_t> hex_bits(const std::string& text, unsigned bytes) {
  if (text.size() != 2 + 2 * size_t{bytes} || text[0] != '0' || text[1] != 'x') {
    return std::nullopt;
  }
  uint64_t bits = 0;
  const auto [end, error] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return bits;
}

// A decimal text (JSON number syntax) rounded to nearest, ties to even. from_chars refuses
// what is out of range, tiny or huge; strtod and strtof round those (to 0 or infinity).
template <typename T>
T parse_decimal(const std::string& text) {
  T value = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec == std::errc::result_out_of_range) {
    if constexpr (std::is_same_v<T, float>) {
      return std::strtof(text.c_str(), nullptr);
    } else {
      return std::strtod(text.c_str(), nullptr);
    }
  }
  return value;
}

// A binary16 value as a double, its infinity standing for 65536 (the next power of the
// exponent range: 65520 lies halfway between 65504 and it, and rounds to infinity).
double half_value(uint16_t h) {
  if ((h & 0x7fffu) == 0x7c00u) return (h & 0x8000u) ? -65536.0 : 65536.0;
  return half_to_float(h);
}

// A decimal rounded to binary16, nearest with ties to even, from the text itself: the float
// nearest the text is rounded again, which is exact unless that float is a binary16 tie the
// text was not on; then the text's side of it decides.
uint16_t half_from_text(const std::string& text) {
  const float f = parse_decimal<float>(text);
  if (!std::isfinite(f) || f == 0) return float_to_half(f);
  const uint16_t below = float_to_half(std::nextafter(f, -INFINITY));
  const uint16_t above = float_to_half(std::nextafter(f, INFINITY));
  const double x = f;
  if (below == above || x - half_value(below) != half_value(above) - x) {
    return float_to_half(f);  // not halfway between two binary16 values
  }
  // Which side of f the text lies: the nearest double says unless it is f itself; then
  // rounding the text down and up (glibc's strtod honours the rounding mode) does.
  const double d = parse_decimal<double>(text);
  int side = d > x ? 1 : d < x ? -1 : 0;
  if (side == 0) {
    const int mode = std::fegetround();
    std::fesetround(FE_DOWNWARD);
    const double low = std::strtod(text.c_str(), nullptr);
    std::fesetround(FE_UPWARD);
    const double high = std::strtod(text.c_str(), nullptr);
    std::fesetround(mode);
    if (low != high) side = low == x ? 1 : -1;
  }
  if (side == 0) return float_to_half(f);  // exactly halfway: to even
  return side > 0 ? above : below;
}

// One float of `bytes` (2, 4 or 8) from a fill value part, as bits.
uint64_t float_bits(const Json& v, unsigned bytes, const std::map<std::string, std::string>& texts,
                    const std::string& pointer, const std::string& where) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const uint64_t nan = bytes == 2 ? kNan16 : bytes == 4 ? kNan32 : kNan64;
    const uint64_t inf = bytes == 2 ? 0x7c00 : bytes == 4 ? 0x7f800000 : 0x7ff0000000000000;
    const uint64_t sign = uint64_t{1} << (8 * bytes - 1);
    if (s == "NaN") return nan;
    if (s == "Infinity") return inf;
    if (s == "-Infinity") return inf | sign;
    if (auto bits = hex_bits(s, bytes)) return *bits;
    refuse(where, fmt::format("{} is not a float{} value (a number, \"NaN\", \"Infinity\", "
                              "\"-Infinity\" or \"0x\" and {} hex digits)",
                              v.dump(), bytes * 8, bytes * 2));
  }
  if (!v.is_number()) refuse(where, fmt::format("{} is not a number", v.dump()));
  // The decimal text: a plain integer prints as itself; other numbers kept theirs.
  std::string text;
  if (v.is_number_float()) {
    auto it = texts.find(pointer);
    text = it != texts.end() ? it->second : fmt::format("{}", v.get<double>());
  } else {
    text = v.dump();
  }
  switch (bytes) {
    case 2:
      return half_from_text(text);
    case 4:
      return std::bit_cast<uint32_t>(parse_decimal<float>(text));
    default:
      return std::bit_cast<uint64_t>(parse_decimal<double>(text));
  }
}

void put_float(std::vector<std::byte>& out, uint64_t bits, unsigned bytes) {
  if (bytes == 2) append(out, static_cast<uint16_t>(bits));
  if (bytes == 4) append(out, static_cast<uint32_t>(bits));
  if (bytes == 8) append(out, bits);
}

template <typename T>
void integer(const Json& v, std::vector<std::byte>& out, const std::string& where,
             const std::string& type) {
  bool fits = false;
  T value{};
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    fits = u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    value = static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    fits = std::numeric_limits<T>::is_signed
               ? i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                     i <= static_cast<int64_t>(std::numeric_limits<T>::max())
               : i >= 0 && static_cast<uint64_t>(i) <=
                               static_cast<uint64_t>(std::numeric_limits<T>::max());
    value = static_cast<T>(i);
  } else {
    refuse(where, fmt::format("{} is not an integer without fraction or exponent, as {} needs",
                              v.dump(), type));
  }
  if (!fits) refuse(where, fmt::format("{} is out of the range of {}", v.dump(), type));
  append(out, value);
}

void byte_array(const Json& v, size_t count, std::vector<std::byte>& out, const std::string& where,
                const std::string& type) {
  if (!v.is_array() || (count != SIZE_MAX && v.size() != count)) {
    refuse(where, count == SIZE_MAX
                      ? fmt::format("{} is not an array of byte values", v.dump())
                      : fmt::format("{} is not an array of {} byte values, as {} needs", v.dump(),
                                    count, type));
  }
  for (const Json& b : v) {
    if (!b.is_number_integer() || b.get<int64_t>() < 0 || b.get<int64_t>() > 255) {
      refuse(where, fmt::format("{}: {} is not a byte value (0 to 255)", v.dump(), b.dump()));
    }
    out.push_back(static_cast<std::byte>(b.get<int64_t>()));
  }
}

std::optional<std::vector<std::byte>> base64(const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<std::byte> out;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t group = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
        group <<= 6;
        continue;
      }
      const int d = digit(c);
      if (d < 0 || pad > 0) return std::nullopt;
      group = (group << 6) | static_cast<uint32_t>(d);
    }
    for (int k = 0; k < 3 - pad; ++k) out.push_back(static_cast<std::byte>(group >> (16 - 8 * k)));
  }
  return out;
}

// The JSON for a float of `bytes` given as bits: a number when one reads back the same.
Json float_json(uint64_t bits, unsigned bytes) {
  const uint64_t sign = uint64_t{1} << (8 * bytes - 1);
  const uint64_t abs = bits & (sign - 1);
  const uint64_t inf = bytes == 2 ? 0x7c00 : bytes == 4 ? 0x7f800000 : 0x7ff0000000000000;
  const uint64_t nan = bytes == 2 ? kNan16 : bytes == 4 ? kNan32 : kNan64;
  if (bits == nan) return "NaN";
  if (abs == inf) return bits & sign ? "-Infinity" : "Infinity";
  auto hex = [&] { return Json(fmt::format("0x{:0{}x}", bits, 2 * bytes)); };
  if (abs > inf) return hex();  // a NaN with a sign or payload
  std::string text;
  if (bytes == 2) {
    text = half_shortest_text(static_cast<uint16_t>(bits));
  } else if (bytes == 4) {
    text = fmt::format("{}", std::bit_cast<float>(static_cast<uint32_t>(bits)));
  } else {
    text = fmt::format("{}", std::bit_cast<double>(bits));
  }
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  Json number(d);
  // The number as a JSON writer prints it must read back to these bits (it does, but a
  // fill value is data: checked, and a bit pattern otherwise).
  const std::string printed = number.dump();
  const std::map<std::string, std::string> texts{{"", printed}};
  if (float_bits(Json::parse(printed), bytes, texts, "", "") != bits) return hex();
  return number;
}

// The bytes of a base64 fill value, as many as the element has (numpy pads S<n> with zeros).
std::vector<std::byte> base64_fill(const Json& value, uint64_t size, const std::string& where) {
  const std::optional<std::vector<uint8_t>> bytes =
      value.is_string() ? decode_base64(value.get<std::string>()) : std::nullopt;
  if (!bytes || bytes->size() > size) {
    refuse(where,
           fmt::format("fill_value {} is not base64 of at most {} bytes", value.dump(), size));
  }
  std::vector<std::byte> out(size, std::byte{0});
  if (!bytes->empty()) std::memcpy(out.data(), bytes->data(), bytes->size());  // "" is b""
  return out;
}

}  // namespace

FillValue fill_value_from_json(const Json& value, const DType& type,
                               const std::map<std::string, std::string>& number_text,
                               const std::string& pointer, const std::string& where) {
  FillValue fill;
  std::vector<std::byte>& out = fill.bytes;
  const std::string name = type.to_string();
  switch (type.kind()) {
    case DTypeKind::kBool:
      if (!value.is_boolean()) refuse(where, fmt::format("{} is not true or false", value.dump()));
      out.push_back(static_cast<std::byte>(value.get<bool>() ? 1 : 0));
      break;
    case DTypeKind::kInt:
      switch (type.size()) {
        case 1:
          integer<int8_t>(value, out, where, "int8");
          break;
        case 2:
          integer<int16_t>(value, out, where, "int16");
          break;
        case 4:
          integer<int32_t>(value, out, where, "int32");
          break;
        default:
          integer<int64_t>(value, out, where, "int64");
          break;
      }
      break;
    case DTypeKind::kUInt:
      switch (type.size()) {
        case 1:
          integer<uint8_t>(value, out, where, "uint8");
          break;
        case 2:
          integer<uint16_t>(value, out, where, "uint16");
          break;
        case 4:
          integer<uint32_t>(value, out, where, "uint32");
          break;
        default:
          integer<uint64_t>(value, out, where, "uint64");
          break;
      }
      break;
    case DTypeKind::kFloat: {
      const auto bytes = static_cast<unsigned>(type.size());
      put_float(out, float_bits(value, bytes, number_text, pointer, where), bytes);
      break;
    }
    case DTypeKind::kComplex: {
      if (!value.is_array() || value.size() != 2) {
        refuse(where, fmt::format("{} is not a pair [real, imaginary]", value.dump()));
      }
      const auto part = static_cast<unsigned>(type.size() / 2);
      for (size_t k = 0; k < 2; ++k) {
        put_float(out,
                  float_bits(value[k], part, number_text, fmt::format("{}/{}", pointer, k), where),
                  part);
      }
      break;
    }
    case DTypeKind::kRawBits:
      byte_array(value, type.size(), out, where, fmt::format("r{}", type.bits()));
      break;
    case DTypeKind::kTime:  // a count, or "NaT" (numpy's not-a-time, the smallest int64)
      if (value == "NaT") {
        integer<int64_t>(Json(INT64_MIN), out, where, "int64");
      } else {
        integer<int64_t>(value, out, where, "int64");
      }
      break;
    case DTypeKind::kVLen:
      if (type.base().joins_units()) {
        if (!value.is_string()) refuse(where, fmt::format("{} is not a string", value.dump()));
        const std::string s = value.get<std::string>();  // UTF-8: the JSON parser checked it
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        out.assign(p, p + s.size());
      } else if (value.is_string()) {
        auto decoded = base64(value.get<std::string>());
        if (!decoded) refuse(where, fmt::format("{} is not base64 text", value.dump()));
        out = std::move(*decoded);
      } else {
        byte_array(value, SIZE_MAX, out, where, "bytes");
      }
      break;
    default:
      throw Error(ErrorCategory::kType, fmt::format("Zarr has no fill value for {}", name),
                  Location::file(where));
  }
  return fill;
}

Json fill_value_to_json(const FillValue& fill, const DType& type) {
  const auto& b = fill.bytes;
  switch (type.kind()) {
    case DTypeKind::kBool:
      return b.at(0) != std::byte{0};
    case DTypeKind::kTime:
      return element<int64_t>(b);
    case DTypeKind::kInt:
      switch (type.size()) {
        case 1:
          return element<int8_t>(b);
        case 2:
          return element<int16_t>(b);
        case 4:
          return element<int32_t>(b);
        default:
          return element<int64_t>(b);
      }
    case DTypeKind::kUInt:
      switch (type.size()) {
        case 1:
          return element<uint8_t>(b);
        case 2:
          return element<uint16_t>(b);
        case 4:
          return element<uint32_t>(b);
        default:
          return element<uint64_t>(b);
      }
    case DTypeKind::kFloat:
    case DTypeKind::kComplex: {
      const auto width =
          static_cast<unsigned>(type.kind() == DTypeKind::kComplex ? type.size() / 2 : type.size());
      auto bits_at = [&](size_t offset) -> uint64_t {
        if (width == 2) return element<uint16_t>(b, offset);
        if (width == 4) return element<uint32_t>(b, offset);
        return element<uint64_t>(b, offset);
      };
      if (type.kind() == DTypeKind::kFloat) return float_json(bits_at(0), width);
      return Json::array({float_json(bits_at(0), width), float_json(bits_at(width), width)});
    }
    case DTypeKind::kOpaque:  // raw_bytes: base64, as zarr-python 3 spells it
      return encode_base64({reinterpret_cast<const uint8_t*>(b.data()), b.size()});
    case DTypeKind::kRawBits: {
      Json out = Json::array();
      for (std::byte x : b) out.push_back(static_cast<int>(x));
      return out;
    }
    case DTypeKind::kVLen:
      if (type.base().joins_units()) {
        return std::string(reinterpret_cast<const char*>(b.data()), b.size());
      }
      // Bytes as base64 text, as zarr-python 3 writes and reads them (it refuses a list).
      return encode_base64({reinterpret_cast<const uint8_t*>(b.data()), b.size()});
    default:
      throw Error(ErrorCategory::kType,
                  fmt::format("Zarr has no fill value for {}", type.to_string()));
  }
}

FillValue default_fill_value(const DType& type) {
  if (type.kind() == DTypeKind::kVLen) return {};
  return {std::vector<std::byte>(type.size())};
}

// Whether `type` is one Zarr v2 has (a numpy dtype) but the v3 core has not: fixed-length
// strings (S<n>, U<n>), structured dtypes and raw void (V<n>). Their fill values are spelled
// as zarr-python 2 spells them (v2_fill_from_json).
bool numpy_only_type(const DType& type) {
  return type.kind() == DTypeKind::kText || type.kind() == DTypeKind::kCompound ||
         type.kind() == DTypeKind::kOpaque;
}

// A v2 fill value of a numpy-only type, in native byte order: S<n> as base64 of its bytes,
// U<n> as the text itself, structures and V<n> as base64 of the stored element; 0 (what
// zarr-python gives arrays created without one) as zeros.
FillValue v2_fill_from_json(const Json& value, const DType& stored, const std::string& where) {
  FillValue fill;
  if (value.is_number() && value == 0) {
    fill.bytes.assign(stored.size(), std::byte{0});
    return fill;
  }
  if (stored.kind() == DTypeKind::kText && stored.encoding() == TextEncoding::kUtf32) {
    const std::optional<std::u32string> units =
        value.is_string() ? utf8_to_utf32(value.get<std::string>()) : std::nullopt;
    if (!units || units->size() > stored.text_length()) {
      refuse(where, fmt::format("fill_value {} is not text of at most {} characters", value.dump(),
                                stored.text_length()));
    }
    fill.bytes.assign(stored.size(), std::byte{0});
    std::memcpy(fill.bytes.data(), units->data(), units->size() * 4);  // native order
    return fill;
  }
  fill.bytes = base64_fill(value, stored.size(), where);
  if (stored.needs_swap()) swap_elements(fill.bytes.data(), 1, stored);
  return fill;
}

// The v2 fill_value of a numpy-only type (`fill` in native order), as zarr-python writes it.
Json v2_fill_to_json(const FillValue& fill, const DType& stored) {
  // Only the text before the trailing zeros is copied: an element may be as large as a chunk
  // (2 GiB) and its fill mostly padding.
  const std::vector<std::byte>& b = fill.bytes;
  if (stored.kind() == DTypeKind::kText && stored.encoding() == TextEncoding::kUtf32 &&
      b.size() == stored.size())
    return model::fixed_text_utf8(stored, b.data());  // the fill is in native order
  // numpy's S<n> ends at its first trailing zero: b"ab" is stored as "YWI=", not "YWIAAAA=".
  size_t used = b.size();
  if (stored.kind() == DTypeKind::kText) {
    while (used > 0 && b[used - 1] == std::byte{0}) --used;
  }
  std::vector<std::byte> bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(used));
  if (stored.needs_swap()) swap_elements(bytes.data(), 1, stored);
  return encode_base64({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

}  // namespace dudley::zarr
