// Every bytes codec: round trips at every level and on data of several element sizes,
// empty input, corrupt and truncated input, a declared size smaller or larger than the
// output, and bounded decoding. (tests/interop/codec_peers_test.py checks the same codecs
// against Python's own implementations.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "dudley/codec/codec.hpp"
#include "dudley/codec/lz4_framed.hpp"
#include "dudley/core/error.hpp"

namespace dudley::codec {
namespace {

Bytes bytes_of(const std::vector<uint8_t>& v) {
  Bytes b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size());
  return b;
}

// Smooth doubles (compressible), some noise (less so), for `n` bytes.
Bytes sample(size_t n, uint32_t seed = 1) {
  Bytes b(n);
  std::mt19937 rng(seed);
  for (size_t i = 0; i + 8 <= n; i += 8) {
    // Quantised: the low mantissa bytes repeat, as in much measured data.
    const double v = std::round(std::sin(static_cast<double>(i) / 800.0) * 1000.0) / 4.0;
    std::memcpy(b.data() + i, &v, 8);
  }
  for (size_t i = n / 8 * 8; i < n; ++i) b[i] = static_cast<std::byte>(rng());
  return b;
}

struct Case {
  std::string name;
  Configuration config;
};

std::vector<Case> every_codec_setting() {
  std::vector<Case> cases;
  for (const char* name : {"zlib", "gzip", "deflate"}) {
    for (int level = 0; level <= 9; ++level) cases.push_back({name, {{"level", level}}});
  }
  for (int level = 1; level <= 9; ++level) cases.push_back({"bz2", {{"level", level}}});
  for (int a : {1, 2, 10, 1000}) cases.push_back({"lz4", {{"acceleration", a}}});
  for (int level : {-5, 0, 1, 4, 9, 12}) cases.push_back({"lz4_frame", {{"level", level}}});
  for (int level : {-3, 1, 3, 9, 19}) {
    cases.push_back({"zstd", {{"level", level}}});
    cases.push_back({"zstd", {{"level", level}, {"checksum", true}}});
  }
  for (const char* cname : {"blosclz", "lz4", "lz4hc", "zlib", "zstd"}) {
    for (const char* shuffle : {"noshuffle", "shuffle", "bitshuffle"}) {
      for (int typesize : {1, 2, 4, 8}) {
        cases.push_back(
            {"blosc",
             {{"cname", cname}, {"clevel", 5}, {"shuffle", shuffle}, {"typesize", typesize}}});
      }
    }
  }
  for (int clevel = 0; clevel <= 9; ++clevel) {
    cases.push_back(
        {"blosc", {{"cname", "lz4"}, {"clevel", clevel}, {"shuffle", "shuffle"}, {"typesize", 8}}});
  }
  cases.push_back({"crc32c", Configuration::object()});
  return cases;
}

TEST(Codecs, RoundTripEverySettingAndSize) {
  for (const Case& c : every_codec_setting()) {
    SCOPED_TRACE(c.name + " " + c.config.dump());
    auto codec = make_bytes_codec(c.name, c.config);
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, size_t{100003}}) {
      SCOPED_TRACE(n);
      const Bytes in = sample(n);
      const Bytes encoded = codec->encode(in);
      Bytes out(n);
      codec->decode_exact(encoded, out);
      EXPECT_TRUE(std::equal(in.begin(), in.end(), out.begin()));
      const Bytes bounded = codec->decode(encoded, n);
      EXPECT_EQ(bounded.size(), n);
      EXPECT_TRUE(std::equal(in.begin(), in.end(), bounded.begin()));
    }
  }
}

TEST(Codecs, SmoothDataCompresses) {
  const Bytes in = sample(1 << 20);
  for (const char* name : {"zlib", "bz2", "lz4", "zstd", "blosc"}) {
    auto codec =
        make_bytes_codec(name, name == std::string("blosc") ? Configuration{{"typesize", 8}}
                                                            : Configuration::object());
    EXPECT_LT(codec->encode(in).size(), in.size() * 9 / 10) << name;
  }
}

TEST(Codecs, DeclaredSizeSmallerThanTheOutputIsRefused) {
  const Bytes in = sample(10000);
  for (const Case& c : every_codec_setting()) {
    SCOPED_TRACE(c.name + " " + c.config.dump());
    auto codec = make_bytes_codec(c.name, c.config);
    const Bytes encoded = codec->encode(in);
    Bytes small(9999);
    EXPECT_FALSE(codec->decode_to(encoded, small).has_value());
    try {
      codec->decode_exact(encoded, small);
      ADD_FAILURE() << "a 9999-byte output accepted 10000 bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kData);
      EXPECT_EQ(e.message().rfind(codec->name() + ":", 0), 0u) << e.message();
    }
    EXPECT_THROW(codec->decode(encoded, 9999), Error);
    Bytes large(10001);
    EXPECT_THROW(codec->decode_exact(encoded, large), Error);
  }
}

TEST(Codecs, CorruptAndTruncatedInputIsAnErrorNamingTheCodec) {
  const Bytes in = sample(50000, 3);
  std::mt19937 rng(5);
  for (const Case& c : every_codec_setting()) {
    SCOPED_TRACE(c.name + " " + c.config.dump());
    auto codec = make_bytes_codec(c.name, c.config);
    const Bytes encoded = codec->encode(in);
    Bytes out(in.size());
    // Truncated: every codec must notice (lz4 blocks cannot always: the block has no end
    // mark, so a cut may still decode; then the size check catches it).
    Bytes cut(encoded.begin(), encoded.begin() + static_cast<long>(encoded.size() / 2));
    EXPECT_THROW(codec->decode_exact(cut, out), Error);
    // Garbage: never a crash, never more than the room; an error or (for formats without
    // checksums) some bytes.
    for (int trial = 0; trial < 20; ++trial) {
      Bytes bad = encoded;
      for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<std::byte>(rng());
      try {
        (void)codec->decode_to(bad, out);
      } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::kData);
        EXPECT_EQ(e.message().rfind(codec->name() + ":", 0), 0u) << e.message();
      }
    }
  }
}

TEST(Codecs, EmptyInputIsNotAStream) {
  for (const char* name :
       {"zlib", "gzip", "deflate", "bz2", "lz4_frame", "zstd", "blosc", "crc32c"}) {
    auto codec = make_bytes_codec(name);
    Bytes out(16);
    EXPECT_THROW((void)codec->decode_to({}, out), Error) << name;
  }
}

TEST(Codecs, ADecompressionBombStopsAtTheLimit) {
  // 64 MiB of zeros compresses to a few KiB; a caller allowing 1 MiB gets an error, and the
  // decoder never holds more than its bounded buffer.
  const Bytes zeros(size_t{64} << 20, std::byte{0});
  for (const char* name : {"zlib", "gzip", "bz2", "lz4", "lz4_frame", "zstd", "blosc"}) {
    auto codec = make_bytes_codec(name);
    const Bytes bomb = codec->encode(zeros);
    EXPECT_LT(bomb.size(), size_t{1} << 20) << name;
    try {
      (void)codec->decode(bomb, size_t{1} << 20);
      ADD_FAILURE() << name << " decoded past the limit";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("more than"), std::string::npos) << e.message();
    }
  }
}

TEST(Codecs, ADeclaredSizeBeyondTheLimitIsRefusedBeforeAnyAllocation) {
  // A 16-byte zstd frame claiming 2^62 bytes (content size 8 bytes, single segment, then an
  // empty last raw block): refused at once, by the claim.
  Bytes claim;
  for (int b : {0x28, 0xb5, 0x2f, 0xfd, 0xe0}) claim.push_back(static_cast<std::byte>(b));
  for (int i = 0; i < 8; ++i) claim.push_back(static_cast<std::byte>(i == 7 ? 0x40 : 0));
  for (int b : {1, 0, 0}) claim.push_back(static_cast<std::byte>(b));
  auto zstd = make_bytes_codec("zstd");
  ASSERT_EQ(zstd->declared_size(claim), uint64_t{1} << 62);
  try {
    (void)zstd->decode(claim, uint64_t{1} << 30);
    ADD_FAILURE() << "decoded";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("declares 4611686018427387904 bytes"), std::string::npos)
        << e.message();
  }
  // Frames that declare their sizes are summed; one that lies about a smaller size than it
  // holds still decodes whole (the buffer grows), one that holds less is what it holds.
  const Bytes data = sample(100000);
  Bytes two = zstd->encode(data);
  const Bytes second = zstd->encode(data);
  two.insert(two.end(), second.begin(), second.end());
  EXPECT_EQ(zstd->declared_size(two), uint64_t{200000});
  EXPECT_EQ(zstd->decode(two, uint64_t{1} << 20).size(), size_t{200000});
  // numcodecs' LZ4 header is a declared size too.
  auto lz4 = make_bytes_codec("numcodecs.lz4");
  Bytes sized = lz4->encode(data);
  EXPECT_EQ(lz4->declared_size(sized), uint64_t{100000});
  EXPECT_THROW((void)lz4->decode(sized, 50000), Error);
  // Codecs without a size in their streams declare none.
  EXPECT_EQ(make_bytes_codec("bz2")->declared_size(make_bytes_codec("bz2")->encode(data)),
            std::nullopt);
}

TEST(Codecs, TrailingBytesAfterAStreamAreRefused) {
  for (const char* name : {"zlib", "deflate"}) {
    auto codec = make_bytes_codec(name);
    Bytes encoded = codec->encode(sample(1000));
    encoded.push_back(std::byte{0x42});
    Bytes out(1000);
    EXPECT_THROW(codec->decode_exact(encoded, out), Error) << name;
  }
}

TEST(Codecs, ConcatenatedGzipMembersAndZstdFramesDecodeAsOne) {
  for (const char* name : {"gzip", "bz2", "zstd", "lz4_frame"}) {
    auto codec = make_bytes_codec(name);
    const Bytes a = sample(3000, 1), b = sample(5000, 2);
    Bytes both = codec->encode(a);
    const Bytes second = codec->encode(b);
    both.insert(both.end(), second.begin(), second.end());
    Bytes out(8000);
    codec->decode_exact(both, out);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), out.begin())) << name;
    EXPECT_TRUE(std::equal(b.begin(), b.end(), out.begin() + 3000)) << name;
  }
}

TEST(Codecs, SettingsAreChecked) {
  EXPECT_THROW(make_bytes_codec("zlib", {{"level", 10}}), Error);
  EXPECT_THROW(make_bytes_codec("zlib", {{"level", "high"}}), Error);
  EXPECT_THROW(make_bytes_codec("blosc", {{"cname", "snappy2"}}), Error);
  EXPECT_THROW(make_bytes_codec("blosc", {{"shuffle", "sideways"}}), Error);
  EXPECT_THROW(make_bytes_codec("zstd", {{"checksum", 1}}), Error);
  EXPECT_THROW(make_bytes_codec("brotli"), Error);
  EXPECT_THROW(make_bytes_codec("zlib", Configuration::array()), Error);
  try {
    make_bytes_codec("zlib", {{"level", 10}});
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kUsage);
    EXPECT_EQ(e.message(), "zlib: setting 'level' must be an integer from 0 to 9, not 10");
  }
  // A codec's configuration makes the same codec again.
  for (const Case& c : every_codec_setting()) {
    auto codec = make_bytes_codec(c.name, c.config);
    auto again = make_bytes_codec(codec->name(), codec->configuration());
    EXPECT_EQ(again->configuration(), codec->configuration()) << c.name;
  }
}

TEST(Codecs, BloscHeaderMustMatchTheChunk) {
  auto codec = make_bytes_codec("blosc", {{"typesize", 8}});
  Bytes encoded = codec->encode(sample(8000));
  encoded.push_back(std::byte{0});  // one byte more than the header says
  Bytes out(8000);
  EXPECT_THROW(codec->decode_exact(encoded, out), Error);
  Bytes tiny = bytes_of({2, 1, 0x21, 8});
  EXPECT_THROW(codec->decode_exact(tiny, out), Error);
}

}  // namespace
}  // namespace dudley::codec

namespace dudley::codec {
namespace {

// ASDF's framing of LZ4 blocks as a codec of its own: what an ASDF lz4 block's storage
// description names, so the chain decodes it.
TEST(Lz4Framed, RoundTripsInPiecesOfTheChunkSize) {
  std::vector<uint8_t> raw(5003);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 7 % 251);
  const auto codec = make_bytes_codec("lz4_framed", {{"chunk_size", 1000}});
  Bytes encoded;
  codec->encode_into(std::as_bytes(std::span(raw)), encoded);
  const auto chunks = split_lz4_framed(encoded);
  ASSERT_EQ(chunks.size(), 6u);  // five of 1000 bytes and one of 3
  EXPECT_EQ(chunks.back().out_offset, 5000u);
  EXPECT_EQ(chunks.back().out_size, 3u);
  std::vector<uint8_t> back(raw.size());
  codec->decode_exact(encoded, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, raw);
  // The default pieces are python's 4 MiB; the description says so.
  EXPECT_EQ(make_bytes_codec("lz4_framed")->configuration()["chunk_size"], 4u << 20);
}

TEST(Lz4Framed, RefusesHeadersThatLie) {
  const auto codec = make_bytes_codec("lz4_framed");
  std::vector<uint8_t> raw(100, 1);
  Bytes encoded;
  codec->encode_into(std::as_bytes(std::span(raw)), encoded);
  Bytes cut(encoded.begin(), encoded.begin() + 5);  // a header cut off
  EXPECT_THROW(split_lz4_framed(cut), Error);
  Bytes longer = encoded;
  longer[3] = std::byte{0xff};  // the piece claims more bytes than there are
  EXPECT_THROW(split_lz4_framed(longer), Error);
  Bytes expanding = encoded;
  expanding[4] = expanding[5] = expanding[6] = std::byte{0xff};  // 16 MB from a few bytes
  EXPECT_THROW(split_lz4_framed(expanding), Error);
  std::vector<uint8_t> small(50);
  EXPECT_THROW(codec->decode_exact(encoded, std::as_writable_bytes(std::span(small))), Error);
}

}  // namespace
}  // namespace dudley::codec

namespace dudley::codec {
namespace {

// numcodecs' FixedScaleOffset, values worked by hand as numpy computes them: encode
// round((x - 1000) * 10) (half to even), decode stored / 10 + 1000 in float64.
TEST(FixedScaleOffset, PacksAndUnpacksAsNumcodecs) {
  auto codec =
      make_bytes_codec("numcodecs.fixedscaleoffset",
                       {{"dtype", "<f8"}, {"astype", "<i2"}, {"scale", 10}, {"offset", 1000}});
  const std::vector<double> x = {1000.26, 1000.25, 999.0, 1003.0};
  Bytes raw(x.size() * 8);
  std::memcpy(raw.data(), x.data(), raw.size());
  Bytes packed;
  codec->encode_into(raw, packed);
  ASSERT_EQ(packed.size(), x.size() * 2);
  std::vector<int16_t> stored(x.size());
  std::memcpy(stored.data(), packed.data(), packed.size());
  EXPECT_EQ(stored, (std::vector<int16_t>{3, 2, -10, 30}));
  Bytes back(raw.size());
  ASSERT_EQ(codec->decode_to(packed, back), back.size());
  std::vector<double> unpacked(x.size());
  std::memcpy(unpacked.data(), back.data(), back.size());
  EXPECT_EQ(unpacked, (std::vector<double>{1000.3, 1000.2, 999.0, 1003.0}));
}

TEST(FixedScaleOffset, RefusesWhatItCannotCompute) {
  // Each setting it cannot compute with is a usage error naming the codec and the setting.
  const std::vector<std::pair<Configuration, std::string>> bad = {
      {{{"dtype", "<f8"}, {"astype", "<i2"}, {"scale", 0}}, "scale is 0"},
      {{{"dtype", "|S4"}}, "dtype '|S4'"},
      {{{"dtype", "<f8"}, {"astype", "<i2"}, {"precision", 2}}, "unknown setting 'precision'"}};
  for (const auto& [config, words] : bad) {
    try {
      (void)make_bytes_codec("numcodecs.fixedscaleoffset", config);
      ADD_FAILURE() << config.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kUsage) << e.what();
      EXPECT_NE(std::string(e.what()).find("numcodecs.fixedscaleoffset"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dudley::codec
