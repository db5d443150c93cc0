#include "chunk_encoder.hpp"

#include <fmt/format.h>

#include <cstring>

#include "dudley/core/box_copy.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::zarr {
namespace {

constexpr uint64_t kEmpty = ~uint64_t{0};  // an inner chunk not stored: offset and size

}  // namespace

ChunkEncoder::ChunkEncoder(const ArrayMetadata& array) : array_(array) {
  stored_ = array.dtype;
  element_ = stored_.size();
  chunk_bytes_ = *Shape(array.chunk_shape).element_count() * element_;  // checked by metadata
  const Pipeline* p = &array.codecs;
  if (p->sharding) {
    const Sharding& s = *p->sharding;
    if (!p->array_to_array.empty() || !p->bytes_to_bytes.empty() || s.codecs.sharding) {
      throw Error(ErrorCategory::kType,
                  "nested sharding and codecs around sharding_indexed are not written by this "
                  "build");
    }
    sharding_ = &s;
    inner_count_ = 1;
    for (size_t d = 0; d < s.chunk_shape.size(); ++d) {
      per_shard_.push_back(array.chunk_shape[d] / s.chunk_shape[d]);
      inner_count_ *= static_cast<uint64_t>(per_shard_.back());
    }
    inner_bytes_ = *Shape(s.chunk_shape).element_count() * element_;
    index_chain_ = s.index_codecs.chain();
    p = &s.codecs;
  }
  chain_ = p->chain();
}

bool ChunkEncoder::encode_one(std::byte* data, const std::vector<int64_t>& shape,
                              const codec::CodecChain& chain, codec::Bytes& out) const {
  const uint64_t bytes = *Shape(shape).element_count() * element_;
  if (!array_.fill_null && all_equal_to(data, bytes, array_.fill.bytes.data(), element_))
    return false;
  if (stored_.needs_swap()) swap_elements(data, bytes / element_, stored_);
  chain.encode_into({data, bytes}, {element_, shape}, out);
  return true;
}

void ChunkEncoder::encode(const std::vector<std::byte*>& raw,
                          std::vector<std::optional<codec::Bytes>>& out, dudley::ThreadPool& pool) {
  out.resize(raw.size());
  if (sharding_) {
    encode_shards(raw, out, pool);
    return;
  }
  pool.parallel_for(raw.size(), [&](size_t k) {
    if (!out[k]) out[k].emplace();
    if (!encode_one(raw[k], array_.chunk_shape, chain_, *out[k])) out[k].reset();
  });
}

// Inner chunks of a batch whose encoded buffers are kept for the next batch (see inner_).
constexpr uint64_t kKeepInnerBytes = uint64_t{64} << 20;

void ChunkEncoder::encode_shards(const std::vector<std::byte*>& raw,
                                 std::vector<std::optional<codec::Bytes>>& out,
                                 dudley::ThreadPool& pool) {
  const Sharding& s = *sharding_;
  const size_t rank = s.chunk_shape.size();
  // Every inner chunk of every shard is one task: a batch of one big shard uses every core.
  const uint64_t tasks = raw.size() * inner_count_;
  inner_.resize(tasks);
  inner_stored_.assign(tasks, 0);
  const bool keep = tasks * inner_bytes_ <= kKeepInnerBytes;
  pool.parallel_for(tasks, [&](size_t t) {
    const size_t shard = t / inner_count_;
    uint64_t rest = t % inner_count_;
    std::vector<int64_t> corner(rank);
    for (size_t d = rank; d-- > 0;) {
      const auto n = static_cast<uint64_t>(per_shard_[d]);
      corner[d] = static_cast<int64_t>(rest % n) * s.chunk_shape[d];
      rest /= n;
    }
    // An inner chunk as wide as its shard in every dimension but the first is one run of
    // the shard's values, encoded where it lies; others are gathered first.
    bool run = true;
    for (size_t d = 1; d < rank; ++d) run = run && s.chunk_shape[d] == array_.chunk_shape[d];
    if (run) {
      const uint64_t offset = rank == 0
                                  ? 0
                                  : static_cast<uint64_t>(corner[0]) *
                                        (inner_bytes_ / static_cast<uint64_t>(s.chunk_shape[0]));
      inner_stored_[t] = encode_one(raw[shard] + offset, s.chunk_shape, chain_, inner_[t]);
      return;
    }
    thread_local codec::Bytes piece;
    piece.resize(inner_bytes_);
    copy_box({raw[shard], array_.chunk_shape, corner}, {piece.data(), s.chunk_shape, {}},
             s.chunk_shape, element_);
    inner_stored_[t] = encode_one(piece.data(), s.chunk_shape, chain_, inner_[t]);
  });
  // Each shard: its stored inner chunks in C order, then (or first) the index.
  std::vector<int64_t> index_shape = per_shard_;
  index_shape.push_back(2);
  const uint64_t index_bytes = 16 * inner_count_ + 4 * s.index_codecs.bytes_to_bytes.size();
  pool.parallel_for(raw.size(), [&](size_t k) {
    std::vector<uint64_t> entries(2 * inner_count_, kEmpty);
    uint64_t at = s.index_at_end ? 0 : index_bytes, size = 0;
    for (uint64_t j = 0; j < inner_count_; ++j) {
      if (inner_stored_[k * inner_count_ + j]) {
        const codec::Bytes& c = inner_[k * inner_count_ + j];
        entries[2 * j] = at;
        entries[2 * j + 1] = c.size();
        at += c.size();
        size += c.size();
      }
    }
    if (size == 0) {
      out[k].reset();  // no inner chunk stored: neither is the shard
      return;
    }
    if (s.index_codecs.endian != native_byte_order()) swap_units(entries.data(), entries.size(), 8);
    const codec::Bytes index = index_chain_.encode(
        {reinterpret_cast<const std::byte*>(entries.data()), 16 * inner_count_}, {8, index_shape});
    if (index.size() != index_bytes) {
      throw Error(ErrorCategory::kData,
                  fmt::format("a shard index of {} bytes, expected {}", index.size(), index_bytes));
    }
    if (!out[k]) out[k].emplace();
    codec::Bytes& shard = *out[k];
    shard.resize(size + index_bytes);
    std::byte* p = shard.data();
    if (!s.index_at_end) p = std::copy(index.begin(), index.end(), p);
    // Large shards let each inner chunk go once copied: the shard's memory is then its
    // values, plus its encoded bytes once, not twice.
    for (uint64_t j = 0; j < inner_count_; ++j) {
      codec::Bytes& c = inner_[k * inner_count_ + j];
      if (inner_stored_[k * inner_count_ + j]) p = std::copy(c.begin(), c.end(), p);
      if (!keep) codec::Bytes().swap(c);
    }
    if (s.index_at_end) std::copy(index.begin(), index.end(), p);
  });
}

}  // namespace dudley::zarr
