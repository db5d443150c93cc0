// LZ4 framed as ASDF's reference library frames it: the raw data cut into pieces (4 MiB when
// python writes it; readers must not assume it), each stored as
// [u32 big-endian length][u32 little-endian raw length][LZ4 block], the length counting the
// raw-length word. The pieces are independent, so they code in parallel. As a bytes codec
// it is "lz4_framed" (make_bytes_codec), so a storage description naming it feeds the chain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

/// Where python's writer cuts the raw data.
inline constexpr size_t kLz4FramedChunkBytes = size_t{4} << 20;
/// The most an LZ4 block expands, per byte of its compressed form.
inline constexpr uint64_t kLz4MaxRatio = 255;

/// One framed piece: its LZ4 block, and where its raw bytes go.
struct Lz4FramedChunk {
  ByteView in;
  size_t out_offset = 0;
  size_t out_size = 0;
};

/// The pieces of framed `in`, each header checked against the bytes left and LZ4's most
/// expansion. Throws Error(kData) "lz4: ..." naming the byte where a header is wrong. The
/// caller compares the last piece's end with the size it expects.
std::vector<Lz4FramedChunk> split_lz4_framed(ByteView in);

/// Sends one piece's framing and its LZ4 block (`packed`, of `raw_size` raw bytes) to
/// `sink`.
void frame_lz4_chunk(ByteView packed, size_t raw_size, const std::function<void(ByteView)>& sink);

/// The LZ4 block codec the pieces use (liblz4, default acceleration), shared.
const BytesCodec& lz4_block_codec();

}  // namespace dudley::codec
