// Encoding a Zarr array's chunks (the chunks of its grid: whole shards when it is sharded)
// from their values, as the array's metadata says: a chunk of nothing but the fill value is
// not stored; a shard's inner chunks are encoded on every core and laid out with their
// index. Shared by the store writer and by region writes into an existing array.
#pragma once

#include <optional>
#include <vector>

#include "dudley/codec/chain.hpp"
#include "dudley/core/thread_pool.hpp"
#include "metadata.hpp"

namespace dudley::zarr {

class ChunkEncoder {
 public:
  /// An encoder for the chunks of `array` (one level of sharding at most). Error(kType) for
  /// nested sharding or codecs around sharding_indexed, which this build does not write.
  explicit ChunkEncoder(const ArrayMetadata& array);

  /// The bytes of one decoded chunk of the grid: the chunk shape's elements in native order.
  uint64_t chunk_bytes() const { return chunk_bytes_; }

  /// Encodes the chunks `raw` (chunk_bytes() each, native byte order; their bytes may be
  /// swapped in place) into `out`, one per chunk: nullopt for a chunk that is all fill
  /// value (nothing to store), else its encoded value. Runs on `pool`.
  void encode(const std::vector<std::byte*>& raw, std::vector<std::optional<codec::Bytes>>& out,
              dudley::ThreadPool& pool = dudley::ThreadPool::shared());

 private:
  // Encodes one chunk of `shape` whose values are at `data` into `out`; false when it is
  // all fill value.
  bool encode_one(std::byte* data, const std::vector<int64_t>& shape,
                  const codec::CodecChain& chain, codec::Bytes& out) const;
  void encode_shards(const std::vector<std::byte*>& raw,
                     std::vector<std::optional<codec::Bytes>>& out, dudley::ThreadPool& pool);

  const ArrayMetadata& array_;
  DType stored_;  // the element type as stored (its byte order the bytes codec's)
  uint64_t element_ = 1;
  uint64_t chunk_bytes_ = 0;
  codec::CodecChain chain_;  // the stored chunks' codecs (inner chunks', when sharded)
  // Sharding: the inner chunk shape, inner chunks per shard, the index's codecs.
  const Sharding* sharding_ = nullptr;
  std::vector<int64_t> per_shard_;
  uint64_t inner_count_ = 0;
  uint64_t inner_bytes_ = 0;
  codec::CodecChain index_chain_;
  // A batch's encoded inner chunks, and which of them are stored (not all fill value). Their
  // memory is kept from batch to batch when the batch's shards are small (kKeepInnerBytes):
  // fresh buffers cost a page fault per 4 KiB the compressor writes, more than 40% of a
  // sharded write's time; larger shards give each inner chunk's memory back once copied.
  std::vector<codec::Bytes> inner_;
  std::vector<char> inner_stored_;
};

}  // namespace dudley::zarr
