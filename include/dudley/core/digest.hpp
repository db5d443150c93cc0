// Cryptographic digests of byte runs through OpenSSL's libcrypto, opened the first time one is
// made: MD5 (ASDF block checksums) and SHA-256 (the body hash every signed S3 request carries).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace dudley {

/// An MD5 digest.
using Md5Digest = std::array<uint8_t, 16>;
/// A SHA-256 digest.
using Sha256Digest = std::array<uint8_t, 32>;

/// MD5 of data given in pieces: update() as bytes come, then digest(). Throws Error (kIo)
/// when libcrypto cannot be opened, (kLimit) when it cannot start a digest.
class Md5 {
 public:
  Md5();
  ~Md5();
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  /// Adds `data` to what is digested.
  void update(std::span<const std::byte> data);
  /// The digest of everything given; the object may not be updated afterwards.
  Md5Digest digest();

 private:
  void* ctx_;  // EVP_MD_CTX, kept out of this header
};

/// MD5 of `data` in one call.
Md5Digest md5(std::span<const std::byte> data);

/// SHA-256 of `data` in one call.
Sha256Digest sha256(std::span<const std::byte> data);

/// `digest` in lowercase hexadecimal, as S3 and ASDF write digests.
template <size_t N>
std::string digest_hex(const std::array<uint8_t, N>& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * N);
  for (const uint8_t byte : digest) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

}  // namespace dudley
