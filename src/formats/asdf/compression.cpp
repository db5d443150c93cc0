// ASDF block compression mapped onto the codec layer: "zlib" (a zlib stream), "bzp2" (a
// bzip2 stream) and "lz4", which the reference library frames as repeated
// [u32 big-endian chunk length][u32 little-endian raw length][LZ4 block], the chunk length
// counting the raw-length word; python cuts the raw data every 4 MiB, readers must not
// assume it. lz4 chunks are independent, so they are coded on the thread pool.
#include <fmt/format.h>

#include <cstring>

#include "dudley/codec/thread_pool.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/asdf/blocks.hpp"

namespace dudley::asdf {
namespace {

constexpr size_t kLz4ChunkBytes = size_t{4} << 20;

uint32_t be32(const std::byte* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}
uint32_t le32(const std::byte* p) {
  return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | uint32_t(p[0]);
}

const codec::BytesCodec& lz4_block() {
  static const auto codec = codec::make_bytes_codec("lz4");
  return *codec;
}

struct Lz4Chunk {
  codec::ByteView in;
  size_t out_offset;
  size_t out_size;
};

void lz4_decompress(codec::ByteView in, codec::MutableByteView out, const std::string& what) {
  std::vector<Lz4Chunk> chunks;
  size_t at = 0, produced = 0;
  while (at < in.size()) {
    if (in.size() - at < 8) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{}: lz4: a chunk header is cut off at byte {}", what, at));
    }
    const uint32_t length = be32(in.data() + at);
    const uint32_t raw = le32(in.data() + at + 4);
    if (length < 4 || length - 4 > in.size() - at - 8) {
      throw Error(
          ErrorCategory::kData,
          fmt::format("{}: lz4: chunk at byte {} claims {} bytes, more than the block holds", what,
                      at, length));
    }
    if (raw > out.size() - produced) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{}: lz4: the chunks decode to more than the block's data_size ({})",
                              what, out.size()));
    }
    chunks.push_back({in.subspan(at + 8, length - 4), produced, raw});
    produced += raw;
    at += 4 + size_t{length};
  }
  if (produced != out.size()) {
    throw Error(ErrorCategory::kData,
                fmt::format("{}: lz4: the chunks decode to {} bytes, not the block's data_size {}",
                            what, produced, out.size()));
  }
  try {
    codec::ThreadPool::shared().parallel_for(chunks.size(), [&](size_t i) {
      lz4_block().decode_exact(chunks[i].in, out.subspan(chunks[i].out_offset, chunks[i].out_size));
    });
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("{}: {}", what, e.message()), e.location());
  }
}

codec::Bytes lz4_compress(codec::ByteView in) {
  const size_t n = (in.size() + kLz4ChunkBytes - 1) / kLz4ChunkBytes;
  std::vector<codec::Bytes> parts(n);
  codec::ThreadPool::shared().parallel_for(n, [&](size_t i) {
    lz4_block().encode_into(
        in.subspan(i * kLz4ChunkBytes, std::min(kLz4ChunkBytes, in.size() - i * kLz4ChunkBytes)),
        parts[i]);
  });
  size_t total = 0;
  for (const auto& p : parts) total += 8 + p.size();
  codec::Bytes out(total);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t length = static_cast<uint32_t>(parts[i].size() + 4);
    const uint32_t raw =
        static_cast<uint32_t>(std::min(kLz4ChunkBytes, in.size() - i * kLz4ChunkBytes));
    for (int k = 0; k < 4; ++k) {
      out[at + k] = static_cast<std::byte>(length >> (24 - 8 * k));
      out[at + 4 + k] = static_cast<std::byte>(raw >> (8 * k));
    }
    std::memcpy(out.data() + at + 8, parts[i].data(), parts[i].size());
    at += 8 + parts[i].size();
  }
  return out;
}

std::string codec_name(const std::string& compression) {
  if (compression == "bzp2") return "bz2";
  return compression;
}

}  // namespace

bool is_known_compression(const std::string& name) {
  return name == "zlib" || name == "bzp2" || name == "lz4";
}

void decompress_block(const std::string& compression, codec::ByteView in,
                      codec::MutableByteView out, const std::string& what) {
  if (compression == "lz4") return lz4_decompress(in, out, what);
  try {
    codec::make_bytes_codec(codec_name(compression))->decode_exact(in, out);
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("{}: {}", what, e.message()), e.location());
  }
}

codec::Bytes compress_block(const std::string& compression, codec::ByteView in, int level) {
  if (compression == "lz4") return lz4_compress(in);
  codec::Configuration config = codec::Configuration::object();
  if (level >= 0) config["level"] = level;
  return codec::make_bytes_codec(codec_name(compression), config)->encode(in);
}

}  // namespace dudley::asdf
