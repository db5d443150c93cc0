// Every codec's decoder on arbitrary bytes: never a crash, never a write past the room it
// was given, never more memory than the limit; and every encoder's output decodes back to
// its input. Input: byte 0 picks the codec, bytes 1-3 the room (up to 1 MiB), the rest is
// the encoded data.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "dudley/codec/chain.hpp"
#include "dudley/core/error.hpp"

namespace {

using dudley::codec::Bytes;
using dudley::codec::Configuration;

struct Setting {
  const char* name;
  const char* config;
};
constexpr Setting kBytesCodecs[] = {
    {"zlib", "{}"},
    {"gzip", "{}"},
    {"deflate", "{}"},
    {"bz2", "{\"level\": 1}"},
    {"lz4", "{}"},
    {"lz4_frame", "{}"},
    {"lz4_framed", "{\"chunk_size\": 64}"},
    {"zstd", "{}"},
    {"zstd", "{\"checksum\": true}"},
    {"blosc", "{\"cname\": \"lz4\", \"shuffle\": \"shuffle\", \"typesize\": 8}"},
    {"blosc", "{\"cname\": \"zstd\", \"shuffle\": \"bitshuffle\", \"typesize\": 4}"},
    {"blosc", "{\"cname\": \"blosclz\", \"shuffle\": \"noshuffle\"}"},
    {"blosc", "{\"cname\": \"zlib\"}"},
    {"crc32c", "{}"},
    {"snappy", "{}"},
    {"snappy", "{\"crc32\": true}"},
    {"xz", "{}"},
    {"numcodecs.delta", "{\"dtype\": \"<i4\"}"},
    // Lossy (values rounded to the scale): decoded, and what they encode decodes, unchecked.
    {"numcodecs.fixedscaleoffset",
     "{\"dtype\": \"<f8\", \"astype\": \"<i2\", \"scale\": 10, \"offset\": 1000}"},
    {"numcodecs.fixedscaleoffset",
     "{\"dtype\": \"<f4\", \"astype\": \"|u1\", \"scale\": 0.5, \"offset\": -3}"},
    {"numcodecs.fixedscaleoffset", "{\"dtype\": \">i4\", \"astype\": \"<i8\", \"scale\": 3}"},
};
constexpr const char* kArrayCodecs[] = {"shuffle", "bitshuffle", "byteorder"};
constexpr size_t kMaxRoom = size_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t pick = data[0];
  const size_t room =
      (size_t{data[1]} | size_t{data[2]} << 8 | size_t{data[3]} << 16) % (kMaxRoom + 1);
  const auto* payload = reinterpret_cast<const std::byte*>(data + 4);
  const size_t n = size - 4;
  constexpr size_t kBytesCount = std::size(kBytesCodecs);
  if (pick % 32 < kBytesCount) {
    const Setting& s = kBytesCodecs[pick % 32];
    auto codec = dudley::codec::make_bytes_codec(s.name, Configuration::parse(s.config));
    // Decode into exactly `room` bytes, then with only a limit.
    std::vector<std::byte> out(room);
    try {
      (void)codec->decode_to({payload, n}, out);
    } catch (const dudley::Error&) {
    }
    try {
      const Bytes got = codec->decode({payload, n}, kMaxRoom);
      if (got.size() > kMaxRoom) __builtin_trap();
    } catch (const dudley::Error&) {
    }
    // Round trip: what we encode decodes to the same bytes (codecs of whole elements
    // refuse other lengths, as they must).
    const std::string_view name(s.name);
    Bytes encoded;
    try {
      encoded = codec->encode({payload, n});
    } catch (const dudley::Error&) {
      // Codecs of whole elements refuse a part element.
      if ((name == "numcodecs.delta" || name == "numcodecs.fixedscaleoffset") && n % 8 != 0)
        return 0;
      throw;
    }
    if (name == "numcodecs.fixedscaleoffset") {
      std::vector<std::byte> unpacked(n);
      (void)codec->decode_to(encoded, unpacked);
      return 0;
    }
    std::vector<std::byte> back(n);
    codec->decode_exact(encoded, back);
    if (n > 0 && std::memcmp(back.data(), payload, n) != 0) __builtin_trap();
    return 0;
  }
  // Array codecs: decode(encode(x)) == x for every element size.
  const char* name = kArrayCodecs[pick % std::size(kArrayCodecs)];
  const size_t element = size_t{1} << (data[1] % 4);  // 1, 2, 4, 8
  auto codec = dudley::codec::make_array_codec(name);
  const dudley::codec::ChunkSpec spec{element, {}};
  std::vector<std::byte> enc(n), back(n);
  codec->encode({payload, n}, enc, spec);
  codec->decode(enc, back, spec);
  if (n > 0 && std::memcmp(back.data(), payload, n) != 0) __builtin_trap();
  return 0;
}
