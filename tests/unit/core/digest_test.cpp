// MD5 and SHA-256 against the digests of FIPS 180-2's and RFC 1321's test messages, and the
// hexadecimal form S3 and ASDF write.
#include "dudley/core/digest.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace dudley {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) {
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

TEST(Digest, Sha256OfTheStandardMessages) {
  EXPECT_EQ(digest_hex(sha256({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest_hex(sha256(bytes_of("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      digest_hex(sha256(bytes_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::vector<std::byte> million_a(1000000, std::byte{'a'});
  EXPECT_EQ(digest_hex(sha256(million_a)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Digest, Md5InOneCallAndInPieces) {
  EXPECT_EQ(digest_hex(md5({})), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(digest_hex(md5(bytes_of("message digest"))), "f96b697d7cb7938d525a2f31aaf161d0");
  Md5 pieces;
  pieces.update(bytes_of("message "));
  pieces.update({});
  pieces.update(bytes_of("digest"));
  EXPECT_EQ(pieces.digest(), md5(bytes_of("message digest")));
}

}  // namespace
}  // namespace dudley
