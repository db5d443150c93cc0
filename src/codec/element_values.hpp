// One element of a numeric type at a byte address, loaded and stored whatever its byte order:
// what the numcodecs filters that compute on elements (Delta, FixedScaleOffset, AsType,
// Quantize) share.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/integer_bytes.hpp"
#include "settings.hpp"

namespace dudley::codec {

/// One integer element of `type` at `at`, as the bits of a native integer of its width
/// (sign-extended for signed types).
inline uint64_t load_element(const std::byte* at, const DType& type) {
  std::byte native[8];
  std::memcpy(native, at, type.size());
  if (type.needs_swap()) swap_units(native, 1, static_cast<unsigned>(type.size()));
  return load_native_integer(native, type.size(), type.kind() == DTypeKind::kInt);
}

/// Stores the low bits of `bits` as one integer element of `type` at `at`.
inline void store_element(uint64_t bits, std::byte* at, const DType& type) {
  std::byte native[8];
  store_native_integer(bits, type.size(), native);
  if (type.needs_swap()) swap_units(native, 1, static_cast<unsigned>(type.size()));
  std::memcpy(at, native, type.size());
}

/// A float element of `type` (4 or 8 bytes) at `at`, as a double.
inline double load_float_element(const std::byte* at, const DType& type) {
  const uint64_t bits = load_element(at, type);
  if (type.size() == 4) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  return std::bit_cast<double>(bits);
}

/// Stores `v` as a float element of `type` (4 or 8 bytes: rounded to float for 4) at `at`.
inline void store_float_element(double v, std::byte* at, const DType& type) {
  if (type.size() == 4) {
    store_element(std::bit_cast<uint32_t>(static_cast<float>(v)), at, type);
  } else {
    store_element(std::bit_cast<uint64_t>(v), at, type);
  }
}

// One element of `type` at `at` as a double (integers exactly up to 2^53, as numpy's
// conversion to float64).
inline double load_number(const std::byte* at, const DType& type) {
  if (type.kind() == DTypeKind::kFloat) return load_float_element(at, type);
  const uint64_t bits = load_element(at, type);
  return type.kind() == DTypeKind::kInt ? static_cast<double>(static_cast<int64_t>(bits))
                                        : static_cast<double>(bits);
}

// Stores `v` as one element of `type`: floats rounded to the type, integers with the
// fraction dropped and values beyond the type's range saturated (numpy leaves such casts
// undefined; a value no integer of the type holds never came from one).
inline void store_number(double v, std::byte* at, const DType& type) {
  if (type.kind() == DTypeKind::kFloat) return store_float_element(v, at, type);
  const int bits = static_cast<int>(type.size() * 8);
  if (std::isnan(v)) v = 0;
  if (type.kind() == DTypeKind::kInt) {
    const double low = -std::ldexp(1.0, bits - 1), high = std::ldexp(1.0, bits - 1);
    const int64_t i = v <= low    ? static_cast<int64_t>(low)
                      : v >= high ? (bits == 64 ? std::numeric_limits<int64_t>::max()
                                                : static_cast<int64_t>(high) - 1)
                                  : static_cast<int64_t>(v);
    store_element(static_cast<uint64_t>(i), at, type);
    return;
  }
  const double high = std::ldexp(1.0, bits);
  const uint64_t u = v <= 0      ? 0
                     : v >= high ? (bits == 64 ? std::numeric_limits<uint64_t>::max()
                                               : static_cast<uint64_t>(high) - 1)
                                 : static_cast<uint64_t>(v);
  store_element(u, at, type);
}

/// The numpy typestr setting `key` of `codec` ("<f8", "i2") as an integer, float32 or float64
/// type, `fallback` when absent; Error(kUsage) for anything else.
inline DType element_type_setting(const std::string& codec, const Configuration& c, const char* key,
                                  const std::string& fallback) {
  const std::string typestr = string_setting(codec, c, key, fallback);
  DType t;
  try {
    t = DType::from_typestr(typestr);
  } catch (const Error&) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: {} '{}' is not a numpy typestr", codec, key, typestr));
  }
  const bool floats = t.kind() == DTypeKind::kFloat && (t.size() == 4 || t.size() == 8);
  if (!t.is_integer() && !floats) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: {} '{}' is not an integer, float32 or float64 type", codec, key, typestr));
  }
  return t;
}

}  // namespace dudley::codec
