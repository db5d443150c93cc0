// Integers of 1, 2, 4 or 8 bytes loaded from and stored to memory in native byte order: the
// one switch on size that codecs (delta), formats (enum members, NDL values) and writers
// share. Inline: codecs call them per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dudley {

/// The integer of `size` bytes (1, 2, 4 or 8; any other size reads 8) at `at`, native
/// order, as 64 bits: sign-extended when `is_signed`, zero-extended otherwise.
inline uint64_t load_native_integer(const void* at, size_t size, bool is_signed) {
  switch (size) {
    case 1: {
      uint8_t v;
      std::memcpy(&v, at, 1);
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int8_t>(v)}) : v;
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, at, 2);
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int16_t>(v)}) : v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, at, 4);
      return is_signed ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(v)}) : v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, at, 8);
      return v;
    }
  }
}

/// Stores the low `size` bytes (1, 2, 4 or 8; any other size writes 8) of `value` at `at`,
/// native order.
inline void store_native_integer(uint64_t value, size_t size, void* at) {
  switch (size) {
    case 1: {
      const auto v = static_cast<uint8_t>(value);
      std::memcpy(at, &v, 1);
      return;
    }
    case 2: {
      const auto v = static_cast<uint16_t>(value);
      std::memcpy(at, &v, 2);
      return;
    }
    case 4: {
      const auto v = static_cast<uint32_t>(value);
      std::memcpy(at, &v, 4);
      return;
    }
    default:
      std::memcpy(at, &value, 8);
  }
}

}  // namespace dudley
