// CRC-32C by the SSE4.2 CRC32 instruction (8 bytes a step) where present, else by
// slicing-by-8 tables; CRC-32 by zlib.
#include "dudley/codec/checksum.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr uint32_t kCastagnoli = 0x82F63B78u;  // reflected polynomial 0x1EDC6F41

struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t{};
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (kCastagnoli & (0u - (c & 1u)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    }
  }
};

uint32_t crc32c_software(const unsigned char* p, size_t n, uint32_t c) {
  static const Tables tables;
  const auto& t = tables.t;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    word ^= c;
    c = t[7][word & 0xFF] ^ t[6][(word >> 8) & 0xFF] ^ t[5][(word >> 16) & 0xFF] ^
        t[4][(word >> 24) & 0xFF] ^ t[3][(word >> 32) & 0xFF] ^ t[2][(word >> 40) & 0xFF] ^
        t[1][(word >> 48) & 0xFF] ^ t[0][word >> 56];
  }
  for (; n > 0; ++p, --n) c = (c >> 8) ^ t[0][(c ^ *p) & 0xFF];
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_hardware(const unsigned char* p, size_t n,
                                                           uint32_t c) {
  uint64_t c64 = c;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c64 = __builtin_ia32_crc32di(c64, word);
  }
  c = static_cast<uint32_t>(c64);
  for (; n > 0; ++p, --n) c = __builtin_ia32_crc32qi(c, *p);
  return c;
}
#endif

// Zarr v3's crc32c codec: the data, then its CRC-32C as 4 little-endian bytes.
class Crc32cCodec final : public BytesCodec {
 public:
  std::string name() const override { return "crc32c"; }
  Configuration configuration() const override { return Configuration::object(); }

  void encode_into(ByteView in, Bytes& out) const override {
    out.resize(in.size() + 4);
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    const uint32_t c = crc32c(in);
    for (int i = 0; i < 4; ++i) out[in.size() + i] = static_cast<std::byte>(c >> (8 * i));
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() < 4) fail(fmt::format("{} bytes cannot hold a 4-byte checksum", in.size()));
    const size_t n = in.size() - 4;
    uint32_t stored = 0;
    for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(in[n + i]) << (8 * i);
    const uint32_t actual = crc32c(in.first(n));
    if (stored != actual) {
      fail(fmt::format("checksum mismatch: stored {:08x}, data has {:08x}", stored, actual));
    }
    if (n > out.size()) return std::nullopt;
    if (n > 0) std::memcpy(out.data(), in.data(), n);
    return n;
  }
};

}  // namespace

bool crc32c_in_hardware() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
#else
  return false;
#endif
}

uint32_t crc32c(ByteView data, uint32_t crc) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (crc32c_in_hardware()) return ~crc32c_hardware(p, data.size(), c);
#endif
  return ~crc32c_software(p, data.size(), c);
}

namespace {

// zlib's crc32() or adler32() over `data`, in pieces of 1 GiB (zlib counts in uInt).
template <typename ZlibSum>
uint32_t zlib_sum(ZlibSum sum, ByteView data, uLong start) {
  uLong c = start;
  size_t done = 0;
  while (done < data.size()) {
    const size_t n = std::min<size_t>(data.size() - done, size_t{1} << 30);
    c = sum(c, reinterpret_cast<const Bytef*>(data.data() + done), static_cast<uInt>(n));
    done += n;
  }
  return static_cast<uint32_t>(c);
}

}  // namespace

uint32_t crc32(ByteView data, uint32_t crc) {
  return zlib_sum(::crc32, data, crc);
}

uint32_t adler32(ByteView data) {
  return zlib_sum(::adler32, data, ::adler32(0L, Z_NULL, 0));
}

std::unique_ptr<BytesCodec> make_crc32c_codec(const Configuration&) {
  return std::make_unique<Crc32cCodec>();
}

}  // namespace dudley::codec
