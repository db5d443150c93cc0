#include "fill_attribute.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "dudley/core/float16.hpp"

namespace dudley::layout {

namespace {

// One element of numeric type `t` (native order) at `out` holding `v` exactly: a number the
// type holds, or, for floats, Zarr's spellings ("NaN", "Infinity", "-Infinity", "0x" bits).
bool exact_element(const model::Value& v, const DType& t, void* out) {
  const size_t width = t.size();
  auto put = [&](uint64_t bits) {
    std::memcpy(out,
                reinterpret_cast<const std::byte*>(&bits) +
                    (std::endian::native == std::endian::big ? 8 - width : 0),
                width);
    return true;
  };
  const int bits = static_cast<int>(width * 8);
  switch (t.kind()) {
    case DTypeKind::kBool:
      return v.is<bool>() && put(v.as<bool>() ? 1 : 0);
    case DTypeKind::kInt: {
      const int64_t low = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      const int64_t high = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
      return v.is<int64_t>() && v.as<int64_t>() >= low && v.as<int64_t>() <= high &&
             put(static_cast<uint64_t>(v.as<int64_t>()));
    }
    case DTypeKind::kUInt: {
      const uint64_t high = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      if (v.is<int64_t>())
        return v.as<int64_t>() >= 0 && put(static_cast<uint64_t>(v.as<int64_t>()));
      return v.is<uint64_t>() && v.as<uint64_t>() <= high && put(v.as<uint64_t>());
    }
    case DTypeKind::kFloat: {
      double d = 0;
      if (v.is<double>()) {
        d = v.as<double>();
      } else if (v.is<int64_t>()) {
        d = static_cast<double>(v.as<int64_t>());
      } else if (v.is<std::string>()) {
        const std::string& s = v.as<std::string>();
        if (s.starts_with("0x") && s.size() == 2 + 2 * width) {
          uint64_t raw = 0;
          const auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), raw, 16);
          return ec == std::errc() && end == s.data() + s.size() && put(raw);
        }
        if (s == "NaN")
          d = std::numeric_limits<double>::quiet_NaN();
        else if (s == "Infinity")
          d = std::numeric_limits<double>::infinity();
        else if (s == "-Infinity")
          d = -std::numeric_limits<double>::infinity();
        else
          return false;
      } else {
        return false;
      }
      if (width == 8) return put(std::bit_cast<uint64_t>(d));
      const float f = static_cast<float>(d);
      if (!std::isnan(d) && static_cast<double>(f) != d) return false;
      if (width == 4) return put(std::bit_cast<uint32_t>(f));
      const uint16_t h = float_to_half(f);
      if (!std::isnan(d) && static_cast<double>(half_to_float(h)) != d) return false;
      return put(h);
    }
    default:
      return false;
  }
}

}  // namespace

std::optional<model::AttributeValue> chunking_fill(const model::Node& n) {
  if (n.attributes.find(model::well_known::kFillValue) || !n.storage.chunking ||
      !n.storage.chunking->fill_value || n.storage.chunking->fill_value->is_null()) {
    return std::nullopt;
  }
  const model::Value& v = *n.storage.chunking->fill_value;
  const DType native = n.dtype.with_byte_order(native_byte_order());
  const DTypeKind kind = native.kind();
  if (kind == DTypeKind::kBool || kind == DTypeKind::kInt || kind == DTypeKind::kUInt ||
      kind == DTypeKind::kFloat) {
    NDArray one(native, Shape(std::vector<int64_t>{}));
    if (exact_element(v, native, one.mutable_data())) return model::AttributeValue(std::move(one));
  }
  return model::AttributeValue(v);
}

}  // namespace dudley::layout
