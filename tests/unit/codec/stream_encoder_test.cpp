// Streaming encoders: what they write decodes, with our whole-buffer decoders and with the
// reference libraries' own (zlib's uncompress, libbz2's), to the data fed in pieces.
#include "dudley/codec/stream_encoder.hpp"

#include <bzlib.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <random>

#include "dudley/core/error.hpp"
#include "sample_bytes.hpp"

namespace dudley::codec {
namespace {

// `data` fed to a streaming encoder of `codec` in pieces of `piece` bytes.
Bytes streamed(const std::string& codec, const Configuration& config, const Bytes& data,
               size_t piece) {
  auto encoder = make_stream_encoder(codec, config);
  Bytes out;
  auto sink = [&](ByteView part) { out.insert(out.end(), part.begin(), part.end()); };
  for (size_t at = 0; at < data.size(); at += piece) {
    encoder->update(ByteView(data).subspan(at, std::min(piece, data.size() - at)), sink);
  }
  encoder->finish(sink);
  return out;
}

Bytes decoded_by_reference(const std::string& codec, const Bytes& stream, size_t size) {
  Bytes out(size + 1);  // one spare byte: a stream decoding to more than `size` shows
  if (codec == "zlib") {
    uLongf n = out.size();
    EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                         reinterpret_cast<const Bytef*>(stream.data()), stream.size()),
              Z_OK);
    out.resize(n);
  } else {
    unsigned n = static_cast<unsigned>(out.size());
    EXPECT_EQ(
        BZ2_bzBuffToBuffDecompress(reinterpret_cast<char*>(out.data()), &n,
                                   const_cast<char*>(reinterpret_cast<const char*>(stream.data())),
                                   static_cast<unsigned>(stream.size()), 0, 0),
        BZ_OK);
    out.resize(n);
  }
  return out;
}

TEST(StreamEncoder, DecodesToWhatWasFedWhateverThePieces) {
  const Bytes data = smooth_sample((size_t{2} << 20) + 12345);  // a piece of 2 MiB is split
  for (const std::string codec : {"zlib", "bz2"}) {
    for (int level : {1, 6, 9}) {
      for (size_t piece : {size_t{4096} + 7, (size_t{1} << 20) + 3, data.size()}) {
        if (codec == "bz2" && (piece < 65536 || level == 6)) continue;  // slow, nothing new
        SCOPED_TRACE(fmt::format("{} level {} pieces of {}", codec, level, piece));
        const Bytes stream = streamed(codec, {{"level", level}}, data, piece);
        EXPECT_LT(stream.size(), data.size());
        const Bytes ours = make_bytes_codec(codec)->decode(stream, data.size());
        ASSERT_EQ(ours.size(), data.size());
        EXPECT_EQ(std::memcmp(ours.data(), data.data(), data.size()), 0);
        const Bytes theirs = decoded_by_reference(codec, stream, data.size());
        ASSERT_EQ(theirs.size(), data.size());
        EXPECT_EQ(std::memcmp(theirs.data(), data.data(), data.size()), 0);
      }
    }
  }
}

TEST(StreamEncoder, NoDataIsAnEmptyStream) {
  for (const std::string codec : {"zlib", "bz2"}) {
    SCOPED_TRACE(codec);
    const Bytes stream = streamed(codec, {}, Bytes(), 1);
    EXPECT_EQ(decoded_by_reference(codec, stream, 0).size(), 0u);
  }
}

TEST(StreamEncoder, CodecsWithoutOneAndBadLevelsAreRefused) {
  EXPECT_THROW(make_stream_encoder("lz4"), Error);
  EXPECT_THROW(make_stream_encoder("zlib", {{"level", 10}}), Error);
  EXPECT_THROW(make_stream_encoder("bz2", {{"level", 0}}), Error);
}

}  // namespace
}  // namespace dudley::codec
