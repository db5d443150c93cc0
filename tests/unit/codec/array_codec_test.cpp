// Array -> array codecs against hand-worked examples, checksums against published vectors,
// chains, and the thread pool.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <atomic>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "dudley/codec/chain.hpp"
#include "dudley/codec/checksum.hpp"
#include "dudley/core/error.hpp"

namespace dudley::codec {
namespace {

Bytes bytes_of(std::initializer_list<int> v) {
  Bytes b;
  for (int x : v) b.push_back(static_cast<std::byte>(x));
  return b;
}

Bytes run(const ArrayCodec& c, const Bytes& in, const ChunkSpec& spec, bool encode) {
  Bytes out(in.size());
  if (encode) {
    c.encode(in, out, spec);
  } else {
    c.decode(in, out, spec);
  }
  return out;
}

TEST(ArrayCodecs, ByteShuffleGroupsLikeBytes) {
  auto shuffle = make_array_codec("shuffle");
  // Three 2-byte elements and one stray byte: low bytes, then high bytes, then the stray.
  const Bytes in = bytes_of({1, 2, 3, 4, 5, 6, 7});
  const Bytes want = bytes_of({1, 3, 5, 2, 4, 6, 7});
  EXPECT_EQ(run(*shuffle, in, {2, {3}}, true), want);
  EXPECT_EQ(run(*shuffle, want, {2, {3}}, false), in);
  // A fixed element size overrides the chunk's (numcodecs' Shuffle(elementsize)).
  auto four = make_array_codec("shuffle", {{"elementsize", 4}});
  EXPECT_EQ(run(*four, bytes_of({1, 2, 3, 4, 5, 6, 7, 8}), {1, {8}}, true),
            bytes_of({1, 5, 2, 6, 3, 7, 4, 8}));
}

TEST(ArrayCodecs, BitShuffleTransposesBits) {
  auto bits = make_array_codec("bitshuffle");
  // Eight 1-byte elements: element i has only bit i set, so bit plane b holds one bit, at
  // element b: plane b's byte is 1 << b.
  Bytes in;
  for (int i = 0; i < 8; ++i) in.push_back(static_cast<std::byte>(1 << i));
  const Bytes out = run(*bits, in, {1, {8}}, true);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(static_cast<int>(out[b]), 1 << b);
  // All ones in element 0 only: every plane has its first bit set.
  Bytes first(8, std::byte{0});
  first[0] = std::byte{0xFF};
  EXPECT_EQ(run(*bits, first, {1, {8}}, true), Bytes(8, std::byte{1}));
  // Round trip with 2-byte elements and a tail of elements that do not fill a byte of bits.
  Bytes mixed(2 * 13);
  for (size_t i = 0; i < mixed.size(); ++i) mixed[i] = static_cast<std::byte>(i * 37 + 5);
  EXPECT_EQ(run(*bits, run(*bits, mixed, {2, {13}}, true), {2, {13}}, false), mixed);
}

TEST(ArrayCodecs, ByteOrderSwapsOnlyForeignOrder) {
  const Bytes in = bytes_of({1, 2, 3, 4, 5, 6, 7, 8});
  auto big = make_array_codec("byteorder", {{"endian", "big"}});
  auto little = make_array_codec("byteorder", {{"endian", "little"}});
  const bool native_little = std::endian::native == std::endian::little;
  const ArrayCodec& foreign = native_little ? *big : *little;
  const ArrayCodec& native = native_little ? *little : *big;
  EXPECT_EQ(run(foreign, in, {4, {2}}, true), bytes_of({4, 3, 2, 1, 8, 7, 6, 5}));
  EXPECT_EQ(run(native, in, {4, {2}}, true), in);
  EXPECT_THROW(run(foreign, bytes_of({1, 2, 3}), {3, {1}}, true), Error);
  EXPECT_THROW(make_array_codec("byteorder", {{"endian", "middle"}}), Error);
}

TEST(ArrayCodecs, TransposeAsNumpy) {
  // A 2 x 3 array of 1-byte elements [[0,1,2],[3,4,5]]; order [1, 0] stores its transpose.
  auto t = make_array_codec("transpose", {{"order", {1, 0}}});
  const Bytes in = bytes_of({0, 1, 2, 3, 4, 5});
  const ChunkSpec spec{1, {2, 3}};
  EXPECT_EQ(t->encoded_spec(spec).shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(run(*t, in, spec, true), bytes_of({0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(run(*t, bytes_of({0, 3, 1, 4, 2, 5}), spec, false), in);
  // 3-D, order [2, 0, 1]: encoded[k][i][j] = decoded[i][j][k] (numpy: a.transpose(2, 0, 1)).
  auto t3 = make_array_codec("transpose", {{"order", {2, 0, 1}}});
  const ChunkSpec s3{2, {2, 3, 4}};
  Bytes a(2 * 24);
  for (size_t e = 0; e < 24; ++e) {
    a[2 * e] = static_cast<std::byte>(e);
    a[2 * e + 1] = static_cast<std::byte>(100 + e);
  }
  const Bytes enc = run(*t3, a, s3, true);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        const size_t at = static_cast<size_t>((k * 2 + i) * 3 + j),
                     from = static_cast<size_t>((i * 3 + j) * 4 + k);
        EXPECT_EQ(enc[2 * at], static_cast<std::byte>(from));
        EXPECT_EQ(enc[2 * at + 1], static_cast<std::byte>(100 + from));
      }
  EXPECT_EQ(run(*t3, enc, s3, false), a);
  EXPECT_THROW(make_array_codec("transpose", {{"order", {0, 0}}}), Error);
  EXPECT_THROW(make_array_codec("transpose", {{"order", {0, 2}}}), Error);
  EXPECT_THROW(run(*t, in, ChunkSpec{1, {6}}, true), Error);  // rank mismatch
}

TEST(ArrayCodecs, EmptyChunks) {
  // Found by fuzz/codec_decode: an empty chunk's null buffer reached memset.
  for (const char* name : {"shuffle", "bitshuffle", "byteorder"}) {
    auto codec = make_array_codec(name);
    for (size_t es : {1, 2, 8}) {
      EXPECT_NO_THROW(codec->encode({}, {}, ChunkSpec{es, {0}})) << name << " " << es;
      EXPECT_NO_THROW(codec->decode({}, {}, ChunkSpec{es, {0}})) << name << " " << es;
    }
  }
  auto t = make_array_codec("transpose", {{"order", {1, 0}}});
  EXPECT_NO_THROW(t->encode({}, {}, ChunkSpec{4, {0, 5}}));
  EXPECT_NO_THROW(t->decode({}, {}, ChunkSpec{4, {0, 5}}));
}

TEST(Checksums, Crc32cPublishedVectors) {
  // RFC 3720 (iSCSI) B.4 and the common check value of "123456789".
  auto crc_of = [](const Bytes& b) { return crc32c(b); };
  EXPECT_EQ(crc_of(Bytes(32, std::byte{0})), 0x8A9136AAu);
  EXPECT_EQ(crc_of(Bytes(32, std::byte{0xFF})), 0x62A8AB43u);
  Bytes inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<std::byte>(i);
    dec[i] = static_cast<std::byte>(31 - i);
  }
  EXPECT_EQ(crc_of(inc), 0x46DD794Eu);
  EXPECT_EQ(crc_of(dec), 0x113FDB5Cu);
  const std::string check = "123456789";
  EXPECT_EQ(crc32c(std::as_bytes(std::span(check.data(), check.size()))), 0xE3069283u);
  EXPECT_EQ(crc32(std::as_bytes(std::span(check.data(), check.size()))), 0xCBF43926u);
  // Continuing from a prefix's CRC gives the whole's.
  const uint32_t half = crc32c(std::span(inc).first(13));
  EXPECT_EQ(crc32c(std::span(inc).subspan(13), half), 0x46DD794Eu);
}

TEST(Checksums, Crc32cCodecAppendsAndVerifies) {
  auto codec = make_bytes_codec("crc32c");
  const std::string check = "123456789";
  const Bytes in(reinterpret_cast<const std::byte*>(check.data()),
                 reinterpret_cast<const std::byte*>(check.data()) + check.size());
  Bytes enc = codec->encode(in);
  ASSERT_EQ(enc.size(), 13u);
  EXPECT_EQ(enc[9], std::byte{0x83});  // little-endian E3069283
  EXPECT_EQ(enc[12], std::byte{0xE3});
  enc[3] = std::byte{'x'};
  Bytes out(9);
  try {
    codec->decode_exact(enc, out);
    ADD_FAILURE() << "a damaged chunk passed its checksum";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("crc32c: checksum mismatch"), std::string::npos) << e.message();
  }
}

TEST(Chains, ShuffleThenZstdThenCrc) {
  const Configuration description = Configuration::parse(R"([
    {"name": "shuffle", "configuration": {"elementsize": 8}},
    {"name": "zstd", "configuration": {"level": 3, "checksum": false}},
    {"name": "crc32c", "configuration": {}}])");
  CodecChain chain = CodecChain::from_configuration(description);
  EXPECT_EQ(chain.configuration(), description);
  std::vector<double> values(5000);
  std::iota(values.begin(), values.end(), 0.5);
  const auto* p = reinterpret_cast<const std::byte*>(values.data());
  const ByteView in(p, values.size() * 8);
  const ChunkSpec spec{8, {5000}};
  const Bytes enc = chain.encode(in, spec);
  EXPECT_LT(enc.size(), in.size() / 4);
  std::vector<double> back(5000);
  chain.decode(enc, std::as_writable_bytes(std::span(back)), spec);
  EXPECT_EQ(back, values);
  // A damaged stage is named.
  Bytes bad = enc;
  bad[enc.size() / 2] ^= std::byte{1};
  try {
    chain.decode(bad, std::as_writable_bytes(std::span(back)), spec);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind("crc32c:", 0), 0u) << e.message();
  }
}

TEST(Chains, TransposeAndByteOrderAndTwoCompressors) {
  CodecChain chain;
  chain.then(make_array_codec("transpose", {{"order", {1, 0}}}))
      .then(make_array_codec("byteorder", {{"endian", "big"}}))
      .then(make_bytes_codec("lz4"))
      .then(make_bytes_codec("gzip"));
  EXPECT_THROW(chain.then(make_array_codec("shuffle")), Error);
  std::vector<uint32_t> v(60);
  std::iota(v.begin(), v.end(), 1000u);
  const ChunkSpec spec{4, {6, 10}};
  const Bytes enc = chain.encode(std::as_bytes(std::span(v)), spec);
  std::vector<uint32_t> back(60);
  chain.decode(enc, std::as_writable_bytes(std::span(back)), spec);
  EXPECT_EQ(back, v);
  // An empty chain passes bytes through, and checks their number.
  CodecChain none;
  const Bytes same = none.encode(std::as_bytes(std::span(v)), spec);
  EXPECT_EQ(same.size(), 240u);
  std::vector<uint32_t> short_out(59);
  EXPECT_THROW(none.decode(same, std::as_writable_bytes(std::span(short_out)), spec), Error);
}

TEST(Chains, RunInZarrOrderWithOneArrayToBytesStep) {
  // array -> array, then one array -> bytes (byteorder), then bytes -> bytes.
  EXPECT_NO_THROW(CodecChain::from_configuration(
      Configuration::parse(R"([{"name": "shuffle"}, {"name": "byteorder"}, {"name": "zstd"}])")));
  const char* wrong[] = {
      R"([{"name": "byteorder"}, {"name": "shuffle"}])",                   // array after it
      R"([{"name": "byteorder"}, {"name": "byteorder"}])",                 // two of it
      R"([{"name": "zstd"}, {"name": "byteorder"}])",                      // after bytes codecs
      R"([{"name": "byteorder", "configuration": {"endian": "middle"}}])"  // bad setting
  };
  for (const char* text : wrong) {
    EXPECT_THROW(CodecChain::from_configuration(Configuration::parse(text)), Error) << text;
  }
  EXPECT_TRUE(is_array_to_bytes("byteorder"));
  EXPECT_FALSE(is_array_to_bytes("transpose"));
}

TEST(Chains, ManyChunksInParallelMatchOneByOne) {
  CodecChain chain = CodecChain::from_configuration(Configuration::parse(
      R"([{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8}}])"));
  std::vector<std::vector<double>> chunks(16, std::vector<double>(20000));
  for (size_t c = 0; c < chunks.size(); ++c) {
    for (size_t i = 0; i < chunks[c].size(); ++i)
      chunks[c][i] = static_cast<double>(c * 1000 + i) / 7;
  }
  std::vector<ByteView> views;
  for (auto& c : chunks) views.push_back(std::as_bytes(std::span(c)));
  const ChunkSpec spec{8, {20000}};
  ThreadPool pool(3);
  const std::vector<Bytes> enc = chain.encode_all(views, spec, pool);
  for (size_t c = 0; c < chunks.size(); ++c) EXPECT_EQ(enc[c], chain.encode(views[c], spec));
  std::vector<std::vector<double>> back(16, std::vector<double>(20000));
  std::vector<ByteView> enc_views(enc.begin(), enc.end());
  std::vector<MutableByteView> outs;
  for (auto& b : back) outs.push_back(std::as_writable_bytes(std::span(b)));
  chain.decode_all(enc_views, outs, spec, pool);
  EXPECT_EQ(back, chunks);
}

TEST(ThreadPoolTest, EveryIterationOnceAndErrorsPropagate) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(hits.size(), [&](size_t i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  // Reused, nested, and with an error.
  std::atomic<int> total{0};
  pool.parallel_for(10, [&](size_t) { pool.parallel_for(10, [&](size_t) { total++; }); });
  EXPECT_EQ(total.load(), 100);
  EXPECT_THROW(pool.parallel_for(100,
                                 [](size_t i) {
                                   if (i == 37) throw std::runtime_error("iteration 37");
                                 }),
               std::runtime_error);
  std::atomic<int> after{0};
  pool.parallel_for(50, [&](size_t) { after++; });
  EXPECT_EQ(after.load(), 50);
  ThreadPool none(1);
  EXPECT_EQ(none.helpers(), 1u);
}

// A process given a share of the cores (a Dask worker sets OMP_NUM_THREADS=1) keeps to it.
TEST(ThreadPoolTest, SizedByTheEnvironmentWhenItSays) {
  const char* dudley = std::getenv("DUDLEY_NUM_THREADS");
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string saved_dudley = dudley ? dudley : "", saved_omp = omp ? omp : "";
  ::setenv("OMP_NUM_THREADS", "1", 1);
  ::unsetenv("DUDLEY_NUM_THREADS");
  EXPECT_EQ(ThreadPool().helpers(), 0u);
  ::setenv("DUDLEY_NUM_THREADS", "3", 1);  // ours wins
  EXPECT_EQ(ThreadPool().helpers(), 2u);
  ::setenv("DUDLEY_NUM_THREADS", "lots", 1);  // not a count: the next one says
  EXPECT_EQ(ThreadPool().helpers(), 0u);
  if (dudley)
    ::setenv("DUDLEY_NUM_THREADS", saved_dudley.c_str(), 1);
  else
    ::unsetenv("DUDLEY_NUM_THREADS");
  if (omp)
    ::setenv("OMP_NUM_THREADS", saved_omp.c_str(), 1);
  else
    ::unsetenv("OMP_NUM_THREADS");
}

}  // namespace
}  // namespace dudley::codec
