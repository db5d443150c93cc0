// A codec chain in Zarr v3's order: array -> array codecs (transpose, shuffles), at most one
// array -> bytes codec (the byte order the elements are stored in), then bytes -> bytes
// codecs (compressors, checksums), applied in order to encode a chunk and in reverse to
// decode it (Zarr v3's codec pipeline, an HDF5 filter pipeline, an ASDF block's
// compression). The array -> bytes step keeps the chunk's size here; Zarr's sharding,
// which changes it, is the Zarr module's.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::codec {

/// Whether the array codec `name` is an array -> bytes step ("byteorder": Zarr v3's "bytes"
/// codec with its `endian`), of which a chain has at most one, after every array -> array one.
bool is_array_to_bytes(const std::string& name);

class CodecChain {
 public:
  CodecChain() = default;
  CodecChain(CodecChain&&) noexcept = default;
  CodecChain& operator=(CodecChain&&) noexcept = default;

  /// A chain from its description: a list of {"name": N, "configuration": {...}} (Zarr v3
  /// spelling; array codecs first). Throws Error(kUsage) for unknown codecs, bad settings or
  /// an array codec after a bytes codec.
  static CodecChain from_configuration(const Configuration& codecs);
  /// The description from_configuration() reads.
  Configuration configuration() const;

  /// Appends an array codec; Error(kUsage) once a bytes codec, or an array -> bytes codec
  /// (is_array_to_bytes), has been added.
  CodecChain& then(std::unique_ptr<ArrayCodec> codec);
  /// Appends a bytes codec.
  CodecChain& then(std::unique_ptr<BytesCodec> codec);

  bool empty() const noexcept { return array_.empty() && bytes_.empty(); }

  /// Encodes one chunk of `chunk`'s element size and shape into `out` (its memory reused).
  void encode_into(ByteView data, const ChunkSpec& chunk, Bytes& out) const;
  /// Encodes one chunk into a new buffer.
  Bytes encode(ByteView data, const ChunkSpec& chunk) const {
    Bytes out;
    encode_into(data, chunk, out);
    return out;
  }
  /// Decodes one chunk into exactly `out` (the chunk's size in bytes): Error(kData) naming
  /// the codec when the input is corrupt or decodes to another size.
  void decode(ByteView encoded, MutableByteView out, const ChunkSpec& chunk) const;

  /// Encodes independent chunks in parallel on `pool` (all of `chunk`'s shape) into `out`,
  /// one buffer per chunk, reusing the buffers' memory when `out` is reused.
  void encode_all(std::span<const ByteView> chunks, const ChunkSpec& chunk, std::vector<Bytes>& out,
                  ThreadPool& pool = ThreadPool::shared()) const;
  /// As above, into new buffers.
  std::vector<Bytes> encode_all(std::span<const ByteView> chunks, const ChunkSpec& chunk,
                                ThreadPool& pool = ThreadPool::shared()) const {
    std::vector<Bytes> out;
    encode_all(chunks, chunk, out, pool);
    return out;
  }
  /// Decodes independent chunks in parallel on `pool`, each into its own output.
  void decode_all(std::span<const ByteView> encoded, std::span<const MutableByteView> out,
                  const ChunkSpec& chunk, ThreadPool& pool = ThreadPool::shared()) const;

 private:
  std::vector<std::unique_ptr<ArrayCodec>> array_;  ///< the array -> bytes one last
  bool serialized_ = false;                         ///< array_ ends with array -> bytes
  std::vector<std::unique_ptr<BytesCodec>> bytes_;
};

}  // namespace dudley::codec
