// The two kinds of codec every chunked or compressed format needs (Zarr v3 codec chains,
// ASDF block compression, HDF5 filters): bytes -> bytes (compressors, checksums) and
// array -> array (byte shuffles, byte order, transposition), which see a chunk's element
// size and shape. Formats map their own codec names and settings onto these classes; the
// classes know nothing of formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>
#include "dudley/core/bytes.hpp"

namespace dudley::codec {

using ByteView = std::span<const std::byte>;
using MutableByteView = std::span<std::byte>;

/// Encoded or decoded bytes (core/bytes.hpp: a vector that does not zero what it grows by).
using Bytes = dudley::Bytes;
using dudley::UninitializedAllocator;

/// A codec's settings as the JSON object Zarr v3 writes for them (`{"level": 5}`).
using Configuration = nlohmann::json;

/// A bytes -> bytes codec. Decoding is always told how much output it may produce, and
/// never produces more: a small input that claims gigabytes (a decompression bomb) is an
/// error, not an allocation. Corrupt input is an Error(kData) whose message starts with the
/// codec's name. Codecs are immutable after construction and safe to share across threads.
class BytesCodec {
 public:
  virtual ~BytesCodec() = default;

  /// The codec's name in Zarr v3 spelling where it has one ("zstd", "gzip", "blosc").
  virtual std::string name() const = 0;
  /// The settings that recreate this codec with make_bytes_codec().
  virtual Configuration configuration() const = 0;

  /// Encodes `in` into `out` (resized to the encoded size; `in` must not be `out`). Reusing
  /// `out` from chunk to chunk keeps its memory: a fresh buffer per chunk costs a page fault
  /// per page, which on some machines is more than the compression itself.
  virtual void encode_into(ByteView in, Bytes& out) const = 0;

  /// Encodes `in` into a new buffer.
  Bytes encode(ByteView in) const {
    Bytes out;
    encode_into(in, out);
    return out;
  }

  /// Decodes `in` into the front of `out`: the number of bytes produced, or nullopt when
  /// the output does not fit in `out` (nothing beyond `out` is written). Throws
  /// Error(kData) for corrupt or truncated input.
  virtual std::optional<size_t> decode_to(ByteView in, MutableByteView out) const = 0;

  /// The size `in` says it decodes to, for codecs whose streams carry one (zstd frames,
  /// numcodecs' LZ4 header); nullopt when it does not say. A claim, not a fact: decoding may
  /// still produce more or fewer bytes, and decode() checks it against the limit before
  /// allocating anything.
  virtual std::optional<uint64_t> declared_size(ByteView in) const {
    (void)in;
    return std::nullopt;
  }

  /// How many bytes this codec's encoding makes of each byte it is given, at most, for the
  /// codecs that store elements in another type (numcodecs' astype, quantize,
  /// fixedscaleoffset, delta: 8 for int8 stored as float64); 1 for the others, whose output
  /// is bounded by the compressed input. A chain bounds its inner stages with it.
  virtual double widening() const { return 1.0; }

  /// Decodes `in` into exactly `out`: an Error(kData) when it decodes to more or fewer bytes
  /// than out.size() (the size the format declared).
  void decode_exact(ByteView in, MutableByteView out) const;

  /// Decodes `in` when only an upper bound of its size is known (`limit` bytes): memory
  /// follows the output, not the limit, nor a size the stream claims. Error(kData) when the
  /// output (or the size the stream declares) exceeds `limit`.
  Bytes decode(ByteView in, uint64_t limit) const;

 protected:
  /// Throws Error(kData) "NAME: MESSAGE".
  [[noreturn]] void fail(const std::string& message) const;
};

/// What an array -> array codec knows of the chunk it works on.
struct ChunkSpec {
  size_t element_size = 1;     ///< bytes of one element
  std::vector<int64_t> shape;  ///< the chunk's shape (C order); empty: a 1-D run of bytes
};

/// An array -> array codec: reorders a chunk's bytes without changing their number.
class ArrayCodec {
 public:
  virtual ~ArrayCodec() = default;
  virtual std::string name() const = 0;
  virtual Configuration configuration() const = 0;
  /// Writes the encoded form of `in` (in.size() bytes of `chunk`) to `out` (same size).
  virtual void encode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const = 0;
  /// The inverse of encode.
  virtual void decode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const = 0;
  /// The chunk as the next codec sees it (a transposition permutes the shape).
  virtual ChunkSpec encoded_spec(const ChunkSpec& chunk) const { return chunk; }
};

/// A bytes -> bytes codec by name and settings: "zlib", "gzip", "deflate" (`level` 0-9;
/// libdeflate), "bz2" (`level` 1-9), "lz4" (block; `acceleration`), "numcodecs.lz4" (the
/// decoded size as 4 little-endian bytes, then a block), "lz4_frame" (`level`),
/// "lz4_framed" (ASDF's framing of LZ4 blocks, `chunk_size`; lz4_framed.hpp), "zstd"
/// (`level`, `checksum`), "blosc" (`cname`, `clevel`, `shuffle` "noshuffle"|"shuffle"|
/// "bitshuffle", `typesize`, `blocksize`), "crc32c". Missing settings take the library's
/// usual defaults. Throws Error(kUsage) for an unknown name or a setting out of range.
std::unique_ptr<BytesCodec> make_bytes_codec(const std::string& name,
                                             const Configuration& configuration = {});

/// An array -> array codec by name: "shuffle" (`elementsize`, 0: the chunk's), "bitshuffle"
/// (`elementsize`), "byteorder" (`endian` "little"|"big": the stored order), "transpose"
/// (`order`, a permutation of the dimensions). Throws Error(kUsage) as make_bytes_codec.
std::unique_ptr<ArrayCodec> make_array_codec(const std::string& name,
                                             const Configuration& configuration = {});

}  // namespace dudley::codec
