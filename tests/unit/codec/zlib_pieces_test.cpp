// The piecewise zlib decoder (ISA-L) against streams zlib itself wrote: the same bytes as
// the data, pieces reported in order up to the whole, and every damaged, short or long
// stream refused with an error rather than a wrong or partial answer.
#include "dudley/codec/zlib_pieces.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <random>

#include "dudley/core/error.hpp"
#include "sample_bytes.hpp"

namespace dudley::codec {
namespace {

// zlib's own stream of `data` (the reference encoder).
Bytes zlib_stream(const Bytes& data, int level = 6) {
  uLongf size = compressBound(data.size());
  Bytes out(size);
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                      reinterpret_cast<const Bytef*>(data.data()), data.size(), level),
            Z_OK);
  out.resize(size);
  return out;
}

// Decodes into `size` bytes, recording each `ready` call.
Bytes decode(const Bytes& stream, size_t size, std::vector<size_t>* calls = nullptr) {
  Bytes out(size);
  decode_zlib_in_pieces(stream, out, [&](size_t n) {
    if (calls) calls->push_back(n);
  });
  return out;
}

TEST(ZlibPieces, DecodesWhatZlibWroteInOrderedPieces) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{(9 << 20) + 13}}) {
    for (int level : {0, 1, 9}) {
      const Bytes data = smooth_sample(n);
      std::vector<size_t> calls;
      EXPECT_EQ(decode(zlib_stream(data, level), n, &calls), data) << n << " level " << level;
      ASSERT_FALSE(calls.empty());
      EXPECT_EQ(calls.back(), n);
      for (size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1], calls[i]);
      if (n > (8 << 20)) {
        EXPECT_GE(calls.size(), 3u) << "a large stream comes in pieces";
      }
    }
  }
}

TEST(ZlibPieces, RefusesADamagedStream) {
  const Bytes data = smooth_sample(1 << 20);
  Bytes stream = zlib_stream(data);
  stream[stream.size() / 2] ^= std::byte{0x5a};
  try {
    decode(stream, data.size());
    FAIL() << "a damaged stream was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kData);
    EXPECT_NE(std::string(e.what()).find("zlib: "), std::string::npos) << e.what();
  }
}

TEST(ZlibPieces, RefusesAWrongChecksum) {
  const Bytes data = smooth_sample(4096);
  Bytes stream = zlib_stream(data);
  stream.back() ^= std::byte{1};  // the Adler-32's last byte
  EXPECT_THROW(decode(stream, data.size()), Error);
}

TEST(ZlibPieces, RefusesATruncatedStream) {
  const Bytes data = smooth_sample(1 << 20);
  const Bytes stream = zlib_stream(data);
  for (size_t keep :
       {size_t{0}, size_t{1}, stream.size() / 3, stream.size() - 4, stream.size() - 1}) {
    const Bytes cut(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(keep));
    EXPECT_THROW(decode(cut, data.size()), Error) << "kept " << keep << " bytes";
  }
}

TEST(ZlibPieces, RefusesAStreamOfAnotherSize) {
  const Bytes data = smooth_sample(100'000);
  const Bytes stream = zlib_stream(data);
  EXPECT_THROW(decode(stream, data.size() - 1), Error) << "more data than the output holds";
  EXPECT_THROW(decode(stream, data.size() + 1), Error) << "less data than the output holds";
  EXPECT_THROW(decode(stream, 0), Error);
}

TEST(ZlibPieces, RefusesANonZlibHeader) {
  Bytes stream = zlib_stream(smooth_sample(1000));
  stream[0] = std::byte{0x1f};  // gzip's magic, not zlib's
  EXPECT_THROW(decode(stream, 1000), Error);
}

}  // namespace
}  // namespace dudley::codec
