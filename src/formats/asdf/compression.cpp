// ASDF block compression mapped onto the codec layer: "zlib" (a zlib stream), "bzp2" (a
// bzip2 stream) and "lz4", which the reference library frames as repeated
// [u32 big-endian chunk length][u32 little-endian raw length][LZ4 block], the chunk length
// counting the raw-length word; python cuts the raw data every 4 MiB, readers must not
// assume it. lz4 chunks are independent, so they are coded on the thread pool.
#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>

#include "blocks.hpp"
#include "dudley/codec/lz4_framed.hpp"
#include "dudley/codec/zlib_pieces.hpp"
#include "dudley/core/big_memory.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::asdf {
namespace {

using codec::kLz4FramedChunkBytes;
using codec::kLz4MaxRatio;
using Lz4Chunk = codec::Lz4FramedChunk;

const codec::BytesCodec& lz4_block() {
  return codec::lz4_block_codec();
}

// The framed chunks of `in` (codec::split_lz4_framed), which must decode to exactly `out`.
std::vector<Lz4Chunk> lz4_chunks(codec::ByteView in, codec::MutableByteView out,
                                 const std::string& what) {
  std::vector<Lz4Chunk> chunks;
  try {
    chunks = codec::split_lz4_framed(in);
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("{}: {}", what, e.message()), e.location());
  }
  const size_t produced = chunks.empty() ? 0 : chunks.back().out_offset + chunks.back().out_size;
  if (produced != out.size()) {
    throw Error(ErrorCategory::kData,
                fmt::format("{}: lz4: the chunks decode to {} bytes, not the block's data_size {}",
                            what, produced, out.size()));
  }
  return chunks;
}

// Runs `decode`, which decodes in order and calls its argument with n each time the first n
// bytes of `out` are final, on this core while a second core hashes each piece as soon as
// it is ready (MD5 is about as slow as the decoder, and it never waits for more than one
// piece) and, while it waits, maps in the output's pages ahead of the decoder.
void decode_hashing(const std::function<void(const codec::DecodedSoFar&)>& decode,
                    codec::MutableByteView out, codec::Md5& md5) {
  std::atomic<size_t> ready{0};  // bytes decoded
  std::atomic<bool> failed{false};
  dudley::ThreadPool::shared().parallel_for(2, [&](size_t task) {
    if (task == 0) {
      try {
        decode([&](size_t n) {
          ready.store(n);
          ready.notify_one();
        });
      } catch (...) {
        failed.store(true);
        ready.store(SIZE_MAX);  // wakes the hashing task, which then stops
        ready.notify_one();
        throw;
      }
      return;
    }
    constexpr size_t kPopulateAhead = size_t{32} << 20;
    constexpr size_t kPopulateStep = size_t{2} << 20;
    size_t hashed = 0;
    size_t populated = 0;
    while (hashed < out.size()) {
      size_t seen = ready.load();
      if (failed.load()) return;
      if (seen > hashed) {
        md5.update(out.subspan(hashed, seen - hashed));
        hashed = seen;
        continue;
      }
      // Pages mapped in here are ones the decoder need not fault in; MADV_POPULATE_WRITE
      // leaves the bytes already written as they are.
      populated = std::max(populated, seen);
      if (populated < out.size() && populated < seen + kPopulateAhead) {
        const size_t n = std::min(kPopulateStep, out.size() - populated);
        if (populate_pages(out.data() + populated, n)) {
          populated += n;
          continue;
        }
        populated = out.size();  // not supported here: stop trying
      }
      ready.wait(seen);
    }
  });
}

void lz4_decompress(codec::ByteView in, codec::MutableByteView out, const std::string& what,
                    codec::Md5* md5) {
  const std::vector<Lz4Chunk> chunks = lz4_chunks(in, out, what);
  try {
    if (md5) {
      return decode_hashing(
          [&](const codec::DecodedSoFar& ready) {
            for (const Lz4Chunk& chunk : chunks) {
              lz4_block().decode_exact(chunk.in, out.subspan(chunk.out_offset, chunk.out_size));
              ready(chunk.out_offset + chunk.out_size);
            }
          },
          out, *md5);
    }
    dudley::ThreadPool::shared().parallel_for(chunks.size(), [&](size_t i) {
      lz4_block().decode_exact(chunks[i].in, out.subspan(chunks[i].out_offset, chunks[i].out_size));
    });
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("{}: {}", what, e.message()), e.location());
  }
}

}  // namespace

std::string codec_name(const std::string& compression) {
  if (compression == "bzp2") return "bz2";
  if (compression == "lz4") return "lz4_framed";
  return compression;
}

bool is_known_compression(const std::string& name) {
  return name == "zlib" || name == "bzp2" || name == "lz4";
}

uint64_t max_decoded_size(const std::string& compression, uint64_t stored) {
  auto times = [](uint64_t a, uint64_t b) { return checked_mul(a, b).value_or(UINT64_MAX); };
  // Deflate's longest match (258 bytes) costs at least 2 bits: 1032:1, plus a zlib header.
  if (compression == "zlib") return times(stored, 1032) + 1032;
  // An LZ4 sequence grows its match by 255 bytes per extra length byte.
  if (compression == "lz4") return times(stored, kLz4MaxRatio) + 64;
  if (compression == "bzp2") {
    // A bzip2 block holds at most 900,000 bytes of run-length code, each 5-byte run making
    // at most 259 bytes; a block takes at least 20 bytes (magic, CRC, tables, one symbol).
    constexpr uint64_t kBlockOutput = uint64_t{900'000} / 5 * 259;
    return times(stored / 20 + 1, kBlockOutput);
  }
  return UINT64_MAX;
}

void decompress_block(const std::string& compression, codec::ByteView in,
                      codec::MutableByteView out, const std::string& what, codec::Md5* md5) {
  if (compression == "lz4") return lz4_decompress(in, out, what, md5);
  try {
    if (md5 && compression == "zlib") {
      // Decoded a piece at a time (ISA-L), each piece hashed on a second core as it is done;
      // libdeflate, a little faster, hands back only the whole.
      return decode_hashing(
          [&](const codec::DecodedSoFar& ready) { codec::decode_zlib_in_pieces(in, out, ready); },
          out, *md5);
    }
    codec::make_bytes_codec(codec_name(compression))->decode_exact(in, out);
  } catch (const Error& e) {
    throw Error(e.category(), fmt::format("{}: {}", what, e.message()), e.location());
  }
  if (md5) md5->update(out);  // one stream (bzip2): nothing to hash until it is decoded
}

void encode_lz4_framed(codec::ByteView raw, codec::Md5* md5,
                       const std::function<void(codec::ByteView)>& sink) {
  auto& pool = dudley::ThreadPool::shared();
  const size_t chunks = (raw.size() + kLz4FramedChunkBytes - 1) / kLz4FramedChunkBytes;
  auto chunk = [&](size_t c) {
    return raw.subspan(c * kLz4FramedChunkBytes,
                       std::min(kLz4FramedChunkBytes, raw.size() - c * kLz4FramedChunkBytes));
  };
  if (md5) {
    // MD5 is the slower side: it has a core to itself, the chunks are compressed in order on
    // the other.
    pool.parallel_for(2, [&](size_t task) {
      if (task == 1) return md5->update(raw);
      codec::Bytes buffer;
      for (size_t c = 0; c < chunks; ++c) {
        lz4_block().encode_into(chunk(c), buffer);
        codec::frame_lz4_chunk(buffer, chunk(c).size(), sink);
      }
    });
    return;
  }
  const size_t batch = pool.helpers() + 1;
  std::vector<codec::Bytes> buffers(batch);
  for (size_t first = 0; first < chunks; first += batch) {
    const size_t n = std::min(batch, chunks - first);
    pool.parallel_for(n, [&](size_t k) { lz4_block().encode_into(chunk(first + k), buffers[k]); });
    for (size_t k = 0; k < n; ++k)
      codec::frame_lz4_chunk(buffers[k], chunk(first + k).size(), sink);
  }
}

codec::Bytes compress_block(const std::string& compression, codec::ByteView in, int level) {
  if (compression == "lz4") {
    codec::Bytes out;
    encode_lz4_framed(in, nullptr, [&](codec::ByteView part) {
      out.insert(out.end(), part.begin(), part.end());
    });
    return out;
  }
  codec::Configuration config = codec::Configuration::object();
  if (level >= 0) config["level"] = level;
  return codec::make_bytes_codec(codec_name(compression), config)->encode(in);
}

}  // namespace dudley::asdf
