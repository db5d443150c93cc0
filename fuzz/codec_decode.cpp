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
  bool exact = true;  // encoding then decoding gives the input back (false: lossy or no encoder)
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
     "{\"dtype\": \"<f8\", \"astype\": \"<i2\", \"scale\": 10, \"offset\": 1000}", false},
    {"numcodecs.fixedscaleoffset",
     "{\"dtype\": \"<f4\", \"astype\": \"|u1\", \"scale\": 0.5, \"offset\": -3}", false},
    {"numcodecs.fixedscaleoffset", "{\"dtype\": \">i4\", \"astype\": \"<i8\", \"scale\": 3}",
     false},
    {"numcodecs.lz4", "{}"},
    {"numcodecs.shuffle", "{\"elementsize\": 4}"},
    {"numcodecs.crc32", "{}"},
    {"numcodecs.adler32", "{\"location\": \"end\"}"},
    {"numcodecs.crc32c", "{\"location\": \"start\"}"},
    {"numcodecs.fletcher32", "{}"},
    {"numcodecs.jenkins_lookup3", "{\"initval\": 7}"},
    {"numcodecs.lzma", "{\"format\": 0}"},
    {"numcodecs.lzma", "{\"format\": 2, \"preset\": 1}"},
    {"numcodecs.astype", "{\"encode_dtype\": \"<i2\", \"decode_dtype\": \"<i8\"}", false},
    {"numcodecs.astype", "{\"encode_dtype\": \">f8\", \"decode_dtype\": \"<f4\"}", false},
    {"numcodecs.quantize", "{\"digits\": 2, \"dtype\": \"<f8\"}", false},
    {"numcodecs.packbits", "{}", false},
    // zfp streams: only decoded (this build does not write them).
    {"numcodecs.zfpy", "{}", false},
};
// Codecs of whole elements (8 bytes at most): they refuse a part element when encoding.
bool whole_elements(std::string_view name) {
  return name == "numcodecs.delta" || name == "numcodecs.fixedscaleoffset" ||
         name == "numcodecs.astype" || name == "numcodecs.quantize";
}
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
  static_assert(kBytesCount <= 64, "a byte picks among at most 64 bytes codecs");
  if (pick % 64 < kBytesCount) {
    const Setting& s = kBytesCodecs[pick % 64];
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
      // Codecs of whole elements refuse a part element; zfpy has no encoder here.
      if ((whole_elements(name) && n % 8 != 0) || name == "numcodecs.zfpy") return 0;
      throw;
    }
    if (!s.exact) {
      std::vector<std::byte> unpacked(8 * n + 8);
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
