// ASDF binary blocks: the header of each block, finding every block of a file (by the block
// index when it is valid, else by walking from header to header), the block index itself,
// and decoding a block's data through the codec layer.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dudley/codec/checksum.hpp"
#include "dudley/codec/codec.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::asdf {

/// The four bytes every block starts with.
inline constexpr std::array<uint8_t, 4> kBlockMagic = {0xd3, 'B', 'L', 'K'};
/// The header size we write (the standard's; readers honour larger ones).
inline constexpr uint16_t kBlockHeaderSize = 48;
/// Flag of a streamed block (the last one, whose data runs to the end of the file).
inline constexpr uint32_t kStreamedFlag = 0x1;
inline constexpr char kBlockIndexHeader[] = "#ASDF BLOCK INDEX";

struct BlockHeader {
  uint64_t offset = 0;  ///< of the magic
  uint16_t header_size = kBlockHeaderSize;
  uint32_t flags = 0;
  std::array<char, 4> compression{};  ///< as stored: "\0\0\0\0", "zlib", "bzp2", "lz4\0"
  uint64_t allocated_size = 0;
  uint64_t used_size = 0;
  uint64_t data_size = 0;
  codec::Md5Digest checksum{};

  uint64_t data_offset() const { return offset + 6 + header_size; }
  /// Where the next block (or the block index) starts.
  uint64_t end() const { return data_offset() + allocated_size; }
  bool streamed() const { return (flags & kStreamedFlag) != 0; }
  /// The compression's name with NULs stripped; "" for none.
  std::string compression_name() const;
  bool has_checksum() const;
};

/// Reads and checks the block header at `offset`: magic, header_size >= 48, used <=
/// allocated, data inside the source, used == data for uncompressed blocks. A streamed
/// block gets its sizes from the source's length. Throws Error(kData) naming the source,
/// the byte offset and the block number `index`.
BlockHeader read_block_header(const io::ByteSource& source, uint64_t offset, size_t index);

/// Every block of a file whose tree (or header, without a tree) ends at `start`: the first
/// block is the first magic at or after `start`. The block index is used when it is valid
/// (it starts right after the last block, its offsets increase and each names a block whose
/// end is the next one); otherwise blocks are found by walking from header to header.
/// `used_index` tells which happened.
std::vector<BlockHeader> locate_blocks(const io::ByteSource& source, uint64_t start,
                                       bool* used_index = nullptr);

/// The 6 + 48 bytes of a block header as written (magic, size, then big-endian fields).
std::array<std::byte, 54> encode_block_header(const BlockHeader& header);

/// The block index text for blocks at `offsets` ("#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- N\n...").
std::string encode_block_index(const std::vector<uint64_t>& offsets);

/// Compression names ASDF knows: "zlib", "bzp2" (the standard's), "lz4" (the framing the
/// reference library and the other implementations share).
bool is_known_compression(const std::string& name);

/// The most bytes `stored` bytes of `compression` can decode to (deflate 1032:1, ASDF's lz4
/// framing about 255:1, bzip2 about 46.6 MB per block of at least 20 bytes); UINT64_MAX for
/// an unknown name or when the product passes 2^64. A block whose data_size is larger lies:
/// it is refused before any memory is taken for it.
uint64_t max_decoded_size(const std::string& compression, uint64_t stored);

/// Decodes a compressed block's `used_size` bytes into exactly `out` (data_size bytes).
/// Error(kData) naming the block for corrupt data or a size that differs. When `md5` is
/// given, the decoded bytes are added to it (for lz4 on a second core while the chunks after
/// them decode).
/// The codec layer's name for an ASDF compression ("zlib", "bz2" for "bzp2", "lz4_framed"
/// for "lz4"): what a storage description names, so the chain can decode the block.
std::string codec_name(const std::string& compression);

void decompress_block(const std::string& compression, codec::ByteView in,
                      codec::MutableByteView out, const std::string& what,
                      codec::Md5* md5 = nullptr);

/// Encodes `raw` in ASDF's lz4 framing (4 MiB of raw data per chunk), giving the encoded
/// bytes to `sink` in order as they are made: chunks are compressed a batch at a time on
/// the thread pool into reused buffers, so memory stays a few chunks whatever the size.
/// When `md5` is given, it hashes the raw bytes on one core while the other compresses
/// (MD5, at about 0.6 GB/s, is then the bound).
void encode_lz4_framed(codec::ByteView raw, codec::Md5* md5,
                       const std::function<void(codec::ByteView)>& sink);

/// Compresses `in` as block data in `compression` (level -1: the codec's default).
codec::Bytes compress_block(const std::string& compression, codec::ByteView in, int level = -1);

}  // namespace dudley::asdf
