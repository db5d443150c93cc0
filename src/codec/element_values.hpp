// One element of a numeric type at a byte address, loaded and stored whatever its byte order:
// what the numcodecs filters that compute on elements (Delta, FixedScaleOffset) share.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/integer_bytes.hpp"

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

}  // namespace dudley::codec
