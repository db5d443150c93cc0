// Test data for codecs: smooth doubles with some noise (compressible, not trivially), with
// matches and literals both, and random bytes after the last whole double.
#pragma once

#include <cmath>
#include <cstring>
#include <random>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

/// `n` bytes of sin-shaped doubles plus integer noise below 16.
inline Bytes smooth_sample(size_t n) {
  Bytes b(n);
  std::mt19937 rng(5);
  for (size_t i = 0; i + 8 <= n; i += 8) {
    const double v =
        std::sin(static_cast<double>(i) / 900.0) * 1000.0 + static_cast<double>(rng() % 16);
    std::memcpy(b.data() + i, &v, 8);
  }
  for (size_t i = n / 8 * 8; i < n; ++i) b[i] = static_cast<std::byte>(rng());
  return b;
}

}  // namespace dudley::codec
