// Checksums of byte runs: MD5 (ASDF blocks), CRC-32C (Castagnoli; Zarr v3's crc32c codec, HDF5's
// Fletcher alternative in newer tools) with the SSE4.2 instruction where the processor has it, and
// the classic CRC-32 (zlib, gzip, PNG) that embedded layouts carry.
#pragma once

#include <array>
#include <cstdint>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

/// CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before; 0 to start).
uint32_t crc32c(ByteView data, uint32_t crc = 0);

/// CRC-32 (ISO-HDLC, as zlib's crc32()) of `data`, continuing from `crc`.
uint32_t crc32(ByteView data, uint32_t crc = 0);

/// An MD5 digest (ASDF block checksums), computed with OpenSSL's libcrypto.
using Md5Digest = std::array<uint8_t, 16>;

/// MD5 of data given in pieces: update() as bytes come, then digest().
class Md5 {
 public:
  Md5();
  ~Md5();
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  void update(ByteView data);
  /// The digest of everything given; the object may not be updated afterwards.
  Md5Digest digest();

 private:
  void* ctx_;  // EVP_MD_CTX, kept out of this header
};

/// MD5 of `data` in one call.
Md5Digest md5(ByteView data);

/// Whether crc32c() uses the processor's CRC32 instruction.
bool crc32c_in_hardware();

}  // namespace dudley::codec
