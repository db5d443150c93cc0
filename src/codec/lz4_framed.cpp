#include "dudley/codec/lz4_framed.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dudley/core/thread_pool.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

uint32_t be32(const std::byte* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}
uint32_t le32(const std::byte* p) {
  return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | uint32_t(p[0]);
}

class Lz4Framed final : public BytesCodec {
 public:
  explicit Lz4Framed(size_t chunk_size) : chunk_size_(chunk_size) {}
  std::string name() const override { return "lz4_framed"; }
  Configuration configuration() const override { return {{"chunk_size", chunk_size_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    const size_t pieces = (in.size() + chunk_size_ - 1) / chunk_size_;
    std::vector<Bytes> packed(pieces);
    ThreadPool::shared().parallel_for(
        pieces, [&](size_t k) { lz4_block_codec().encode_into(piece(in, k), packed[k]); });
    out.clear();
    for (size_t k = 0; k < pieces; ++k) {
      frame_lz4_chunk(packed[k], piece(in, k).size(),
                      [&](ByteView part) { out.insert(out.end(), part.begin(), part.end()); });
    }
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    const std::vector<Lz4FramedChunk> chunks = split_lz4_framed(in);
    const size_t total = chunks.empty() ? 0 : chunks.back().out_offset + chunks.back().out_size;
    if (total > out.size()) return std::nullopt;
    ThreadPool::shared().parallel_for(chunks.size(), [&](size_t k) {
      lz4_block_codec().decode_exact(chunks[k].in,
                                     out.subspan(chunks[k].out_offset, chunks[k].out_size));
    });
    return total;
  }

 private:
  ByteView piece(ByteView in, size_t k) const {
    return in.subspan(k * chunk_size_, std::min(chunk_size_, in.size() - k * chunk_size_));
  }
  size_t chunk_size_;
};

}  // namespace

std::vector<Lz4FramedChunk> split_lz4_framed(ByteView in) {
  std::vector<Lz4FramedChunk> chunks;
  size_t at = 0, produced = 0;
  while (at < in.size()) {
    if (in.size() - at < 8) {
      throw Error(ErrorCategory::kData,
                  fmt::format("lz4: a chunk header is cut off at byte {}", at));
    }
    const uint32_t length = be32(in.data() + at);
    const uint32_t raw = le32(in.data() + at + 4);
    if (length < 4 || length - 4 > in.size() - at - 8) {
      throw Error(ErrorCategory::kData,
                  fmt::format("lz4: chunk at byte {} claims {} bytes, more than the block holds",
                              at, length));
    }
    if (raw > uint64_t{length - 4} * kLz4MaxRatio + 64) {
      throw Error(ErrorCategory::kData,
                  fmt::format("lz4: chunk at byte {} claims {} bytes from {} compressed (lz4 "
                              "expands at most {}:1)",
                              at, raw, length - 4, kLz4MaxRatio));
    }
    chunks.push_back({in.subspan(at + 8, length - 4), produced, raw});
    produced += raw;  // at most 255 times the input's size: no overflow
    at += 4 + size_t{length};
  }
  return chunks;
}

void frame_lz4_chunk(ByteView packed, size_t raw_size, const std::function<void(ByteView)>& sink) {
  const auto length = static_cast<uint32_t>(packed.size() + 4);
  const auto raw = static_cast<uint32_t>(raw_size);
  std::byte prefix[8];
  for (int b = 0; b < 4; ++b) {
    prefix[b] = static_cast<std::byte>(length >> (24 - 8 * b));
    prefix[4 + b] = static_cast<std::byte>(raw >> (8 * b));
  }
  sink({prefix, 8});
  sink(packed);
}

const BytesCodec& lz4_block_codec() {
  static const auto codec = make_bytes_codec("lz4");
  return *codec;
}

std::unique_ptr<BytesCodec> make_lz4_framed(const Configuration& c) {
  const int64_t size = int_setting("lz4_framed", c, "chunk_size",
                                   static_cast<int64_t>(kLz4FramedChunkBytes), 1, INT32_MAX);
  return std::make_unique<Lz4Framed>(static_cast<size_t>(size));
}

}  // namespace dudley::codec
