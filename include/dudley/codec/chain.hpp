// A codec chain: array -> array codecs, then bytes -> bytes codecs, applied in order to
// encode a chunk and in reverse to decode it (Zarr v3's codec pipeline, an HDF5 filter
// pipeline, an ASDF block's compression).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "dudley/codec/thread_pool.hpp"

namespace dudley::codec {

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

  /// Appends an array codec; Error(kUsage) once a bytes codec has been added.
  CodecChain& then(std::unique_ptr<ArrayCodec> codec);
  /// Appends a bytes codec.
  CodecChain& then(std::unique_ptr<BytesCodec> codec);

  bool empty() const noexcept { return array_.empty() && bytes_.empty(); }

  /// Encodes one chunk of `chunk`'s element size and shape.
  Bytes encode(ByteView data, const ChunkSpec& chunk) const;
  /// Decodes one chunk into exactly `out` (the chunk's size in bytes): Error(kData) naming
  /// the codec when the input is corrupt or decodes to another size.
  void decode(ByteView encoded, MutableByteView out, const ChunkSpec& chunk) const;

  /// Encodes independent chunks in parallel on `pool` (all of `chunk`'s shape).
  std::vector<Bytes> encode_all(std::span<const ByteView> chunks, const ChunkSpec& chunk,
                                ThreadPool& pool = ThreadPool::shared()) const;
  /// Decodes independent chunks in parallel on `pool`, each into its own output.
  void decode_all(std::span<const ByteView> encoded, std::span<const MutableByteView> out,
                  const ChunkSpec& chunk, ThreadPool& pool = ThreadPool::shared()) const;

 private:
  std::vector<std::unique_ptr<ArrayCodec>> array_;
  std::vector<std::unique_ptr<BytesCodec>> bytes_;
};

}  // namespace dudley::codec
