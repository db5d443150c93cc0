#include "source.hpp"

#include "chunk_listing.hpp"
#include "dudley/core/box_copy.hpp"
#include "dudley/core/chunk_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <tuple>

#include "dudley/codec/chain.hpp"
#include "dudley/codec/codec.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/deadline.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::zarr {
namespace {

constexpr uint64_t kEmpty = ~uint64_t{0};  // an inner chunk never written: offset and size
// Chunks fetched from a remote store at once: about this many bytes of them decoded.
constexpr uint64_t kRemoteBatchBytes = uint64_t{64} << 20;
// A chunk fetched whole may be larger than decoded by this fraction plus a little (no
// compressor here expands data by more; a larger body is refused, not buffered).
constexpr uint64_t kExpansionDivisor = 32;
constexpr uint64_t kExpansionBytes = uint64_t{1} << 16;

// One level of sharding: a shard of `shard` elements holds a grid of `inner` chunks found
// through an index at its start or end.
struct Level {
  std::vector<int64_t> shard;
  std::vector<int64_t> inner;
  std::vector<int64_t> per_shard;  // inner chunks along each dimension
  uint64_t inner_count = 1;
  codec::CodecChain index_chain;
  ByteOrder index_endian = ByteOrder::kLittle;
  std::vector<int64_t> index_shape;
  uint64_t index_bytes = 0;  // encoded
  bool at_end = true;
};

// A level of sharding with codecs around it (a transpose before sharding_indexed, a
// compressor or checksum after it): its index is inside the encoded shard, so the shard is
// decoded whole, inner chunk by inner chunk.
struct Wrapped {
  std::vector<int64_t> shape;                             // the chunk as this level gets it
  codec::CodecChain before;                               // the array -> array codecs
  std::vector<std::unique_ptr<codec::BytesCodec>> after;  // bytes -> bytes, in encode order
  Level level;                                            // of the array sharding sees
};

// Whether codecs around sharding_indexed hide the shard's index (see Wrapped).
bool hides_index(const Pipeline& p) {
  return p.sharding && (!p.array_to_array.empty() || !p.bytes_to_bytes.empty());
}

Level level_of(const Sharding& s, const std::vector<int64_t>& shard) {
  Level level;
  level.shard = shard;
  level.inner = s.chunk_shape;
  for (size_t d = 0; d < shard.size(); ++d) {
    level.per_shard.push_back(shard[d] / s.chunk_shape[d]);
    level.inner_count *= static_cast<uint64_t>(level.per_shard.back());
  }
  level.index_chain = s.index_codecs.chain();
  level.index_endian = s.index_codecs.endian;
  level.index_shape = level.per_shard;
  level.index_shape.push_back(2);
  level.index_bytes = 16 * level.inner_count + 4 * s.index_codecs.bytes_to_bytes.size();
  level.at_end = s.index_at_end;
  return level;
}

// Where a chunk's encoded bytes are: a range of a key's value.
struct Blob {
  std::string key;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool whole = false;  // the key's whole value, its size not asked (at most `length` bytes)
};

class ZarrSource final : public model::ArraySource {
 public:
  ZarrSource(std::shared_ptr<const io::Store> store, std::string prefix, ArrayMetadata meta)
      : store_(std::move(store)), prefix_(std::move(prefix)), meta_(std::move(meta)) {
    const Pipeline* p = &meta_.codecs;
    std::vector<int64_t> outer = meta_.chunk_shape;
    // Levels whose index can be read apart: inner chunks fetched by their byte ranges.
    while (p->sharding && !hides_index(*p)) {
      levels_.push_back(level_of(*p->sharding, outer));
      outer = p->sharding->chunk_shape;
      p = &p->sharding->codecs;
    }
    unit_ = outer;
    // Below a level that hides its index, every level is decoded whole.
    while (p->sharding) {
      Wrapped w;
      w.shape = outer;
      std::vector<int64_t> sharded = outer;
      for (const CodecSpec& c : p->array_to_array) {
        w.before.then(
            codec::make_array_codec(c.name, nlohmann::json::parse(c.configuration.dump())));
        std::vector<int64_t> permuted;
        for (const auto& axis : c.configuration["order"])
          permuted.push_back(sharded[axis.get<size_t>()]);
        sharded = std::move(permuted);
      }
      for (const CodecSpec& c : p->bytes_to_bytes) {
        w.after.push_back(
            codec::make_bytes_codec(c.name, nlohmann::json::parse(c.configuration.dump())));
      }
      w.level = level_of(*p->sharding, sharded);
      wrapped_.push_back(std::move(w));
      outer = p->sharding->chunk_shape;
      p = &p->sharding->codecs;
    }
    innermost_ = outer;
    chain_ = p->chain();
    element_ = meta_.dtype.size();
    native_ =
        meta_.dtype.needs_swap() ? meta_.dtype.with_byte_order(native_byte_order()) : meta_.dtype;
    unit_bytes_ = *Shape(unit_).element_count() * element_;  // checked by the metadata
    // Decoding works on the stored bytes, swapped at the end: a missing inner chunk of a
    // decoded shard is filled in the stored order. Only shards need it: an element may be
    // as large as a chunk, and a copy of its fill for nothing doubles what opening costs.
    if (meta_.codecs.sharding) {
      stored_fill_ = meta_.fill.bytes;
      if (meta_.dtype.needs_swap()) swap_elements(stored_fill_.data(), 1, meta_.dtype);
    }
  }

  NDArray read() override { return read(Hyperslab::all(meta_.shape)); }

  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(meta_.shape);
    NDArray out(native_, Shape(slab.result_shape()));
    read_into(slab, out.mutable_data());
    return out;
  }

  void read_into(const Hyperslab& slab, void* out) override {
    slab.check_fits(meta_.shape);
    const size_t rank = meta_.shape.size();
    std::vector<std::vector<Segment>> segments(rank);
    for (size_t d = 0; d < rank; ++d) {
      segments[d] = segments_of(slab.start[d], slab.count[d], slab.step(d), unit_[d]);
      if (segments[d].empty()) return;  // nothing selected
    }
    // The output's C-order strides over every dimension (dropped ones have count 1).
    std::vector<uint64_t> out_stride(rank, element_);
    for (size_t d = rank; d-- > 1;) {
      out_stride[d - 1] = out_stride[d] * static_cast<uint64_t>(slab.count[d]);
    }
    // The chunks touched, in batches decoded on every core. A remote store's batch is
    // fetched first, many transfers at once (overlapping the decoding of the one before);
    // a local one's is read by the decoding threads.
    auto& pool = dudley::ThreadPool::shared();
    const bool remote = store_->remote();
    const size_t batch = remote
                             ? static_cast<size_t>(std::clamp<uint64_t>(
                                   kRemoteBatchBytes / std::max<uint64_t>(unit_bytes_, 1), 8, 256))
                             : 4 * (pool.helpers() + 1);
    std::vector<int64_t> at(rank, 0), first(rank, 0), end(rank);
    for (size_t d = 0; d < rank; ++d) end[d] = static_cast<int64_t>(segments[d].size());
    auto decode = [&](RemoteBatch& b) {
      pool.parallel_for(b.tasks.size(), [&](size_t t) {
        read_chunk(b.tasks[t], slab, out_stride, static_cast<std::byte*>(out),
                   remote ? (b.blobs[t] ? &*b.blobs[t] : nullptr) : nullptr,
                   remote ? &b.fetched[t] : nullptr);
      });
      b.tasks.clear();
    };
    // A remote store's batches overlap: the next one is fetched (many transfers at once)
    // while this one is decoded on every core.
    RemoteBatch batches[2];
    std::future<void> fetching;
    size_t filling = 0;
    auto run = [&] {
      if (!remote) {
        decode(batches[0]);
        return;
      }
      RemoteBatch& full = batches[filling];
      if (fetching.valid()) fetching.get();  // the other batch is in: errors surface here
      fetching = std::async(std::launch::async, [this, &full, deadline = current_deadline()] {
        const ThreadDeadline carried(deadline);  // the caller's time limit holds here too
        fetch(full);
      });
      filling ^= 1;
      if (!batches[filling].tasks.empty()) decode(batches[filling]);
    };
    do {
      std::vector<const Segment*> task(rank);
      for (size_t d = 0; d < rank; ++d) task[d] = &segments[d][static_cast<size_t>(at[d])];
      batches[filling].tasks.push_back(std::move(task));
      if (batches[filling].tasks.size() == batch) run();
    } while (next_position(at, first, end));
    if (!batches[filling].tasks.empty()) run();
    if (fetching.valid()) {
      fetching.get();
      decode(batches[filling ^ 1]);
    }
  }

  model::ReadUnit read_unit() const override { return {unit_, unit_bytes_}; }

  // The chunks (shards, for a sharded array) the store holds, listed once; reads then skip
  // missing chunks without asking the store for each.
  std::optional<model::StoredChunks> stored_chunks() override {
    return listing_.list(*store_, prefix_, meta_);
  }

 private:
  // The chunks of one batch of a read, located and fetched from a remote store.
  struct RemoteBatch {
    std::vector<std::vector<const Segment*>> tasks;
    std::vector<std::optional<Blob>> blobs;
    std::vector<codec::Bytes> fetched;
    std::vector<io::RangeRequest> requests;
  };

  // Locates every chunk of `b` and fetches those the store has, many at once. Without
  // shards, locating is naming keys, done here while the pool decodes the other batch;
  // shards' indexes are requests, made on threads of this call's own: the shared pool is
  // busy decoding, and may be running the caller of this read, which waits for this fetch.
  void fetch(RemoteBatch& b) const {
    b.blobs.assign(b.tasks.size(), std::nullopt);
    auto locate_one = [&](size_t t) { b.blobs[t] = locate(grid_of(b.tasks[t]), false); };
    if (levels_.empty()) {
      for (size_t t = 0; t < b.tasks.size(); ++t) locate_one(t);
    } else {
      constexpr size_t kIndexReaders = 8;  // shard indexes asked for at once
      run_on_own_threads(b.tasks.size(), kIndexReaders, locate_one);
    }
    b.fetched.resize(b.tasks.size());
    b.requests.clear();
    std::vector<size_t> of;  // the task of each request
    for (size_t t = 0; t < b.tasks.size(); ++t) {
      if (!b.blobs[t]) continue;
      const Blob& blob = *b.blobs[t];
      b.requests.push_back({blob.key, blob.offset, blob.length, blob.whole, &b.fetched[t], true});
      of.push_back(t);
    }
    store_->read_many(b.requests);
    for (size_t i = 0; i < b.requests.size(); ++i) {
      if (!b.requests[i].found) b.blobs[of[i]].reset();  // a missing chunk: fill value
    }
  }

  std::string key(const std::string& name) const {
    return prefix_.empty() ? name : prefix_ + "/" + name;
  }

  static std::vector<int64_t> grid_of(const std::vector<const Segment*>& task) {
    std::vector<int64_t> grid(task.size());
    for (size_t d = 0; d < task.size(); ++d) grid[d] = task[d]->chunk;
    return grid;
  }

  // Reads the chunk of the read grid at `task` (one segment per dimension) and places its
  // selected elements in `out`. With `fetched`, the chunk was located (`located`; nullptr:
  // never written) and its bytes fetched already.
  void read_chunk(const std::vector<const Segment*>& task, const Hyperslab& slab,
                  const std::vector<uint64_t>& out_stride, std::byte* out, const Blob* located,
                  const codec::Bytes* fetched = nullptr) const {
    const size_t rank = task.size();
    thread_local codec::Bytes encoded;
    thread_local codec::Bytes decoded;
    const std::optional<Blob> blob = fetched
                                         ? (located ? std::optional<Blob>(*located) : std::nullopt)
                                         : locate(grid_of(task), true);
    // A whole chunk that is one run of the output (every element selected, in order, rows as
    // long as the output's) decodes straight into it: no copy.
    std::byte* direct = nullptr;
    if (blob && rank > 0) {
      bool whole = true;
      for (size_t d = 0; d < rank && whole; ++d) {
        whole = slab.step(d) == 1 && task[d]->k1 - task[d]->k0 == unit_[d] &&
                (d == 0 || slab.count[d] == unit_[d]);
        // The chunk starts on its own first element (not cut by the selection).
        whole = whole && slab.start[d] + task[d]->k0 == task[d]->chunk * unit_[d];
      }
      if (whole) direct = out + static_cast<uint64_t>(task[0]->k0) * out_stride[0];
    }
    const std::byte* chunk = nullptr;
    if (blob && direct && !fetched && wrapped_.empty() && chain_.empty() &&
        blob->length == unit_bytes_) {
      // An uncompressed chunk that is one run of the output is read straight into it (a
      // copy through a buffer was an eighth of an uncompressed store's conversion).
      store_->read(blob->key, blob->offset, blob->length, direct);
      if (meta_.dtype.needs_swap()) swap_elements(direct, unit_bytes_ / element_, meta_.dtype);
      return;
    }
    if (blob && !direct && !fetched && wrapped_.empty() && chain_.empty() &&
        blob->length == unit_bytes_ &&
        ChunkRows{task, slab, unit_}.spanned_bytes(element_) <= unit_bytes_ / 4) {
      // A small part of an uncompressed chunk (a picture's every k-th row): its rows, read
      // from the store, rather than every byte of the chunk for a few.
      read_chunk_rows(ChunkRows{task, slab, unit_}, meta_.dtype, blob->offset, out,
                      [&](uint64_t offset, uint64_t length, std::byte* into) {
                        store_->read(blob->key, offset, length, into);
                      });
      return;
    }
    if (blob) {
      if (!fetched) {
        encoded.resize(blob->length);
        store_->read(blob->key, blob->offset, blob->length, encoded.data());
      }
      const codec::Bytes& bytes = fetched ? *fetched : encoded;
      std::byte* target = direct;
      if (!target) {
        decoded.resize(unit_bytes_);
        target = decoded.data();
      }
      try {
        if (wrapped_.empty()) {
          chain_.decode(bytes, {target, unit_bytes_}, {element_, unit_});
        } else {
          decode_wrapped(0, bytes, target);
        }
      } catch (const Error& e) {
        throw Error(e.category(), fmt::format("chunk {}: {}", describe(*blob), e.message()),
                    Location::file(store_->where(blob->key)));
      }
      if (meta_.dtype.needs_swap()) swap_elements(target, unit_bytes_ / element_, meta_.dtype);
      if (direct) return;
      chunk = decoded.data();
    }
    ChunkRows{task, slab, unit_}.place(chunk, meta_.fill.bytes.data(), element_, out);
  }

  // Decodes the chunk `in` of wrapped level `depth` (past the last: an innermost chunk)
  // into `out`, its bytes in the stored order.
  void decode_wrapped(size_t depth, codec::ByteView in, std::byte* out) const {
    if (depth == wrapped_.size()) {
      chain_.decode(in, {out, *Shape(innermost_).element_count() * element_},
                    {element_, innermost_});
      return;
    }
    const Wrapped& w = wrapped_[depth];
    const Level& level = w.level;
    const uint64_t bytes = *Shape(w.shape).element_count() * element_;
    // The codecs after sharding, undone: the shard's size is not recorded, so it is bounded
    // by what its inner chunks and index could take (memory follows the output).
    const uint64_t limit = 2 * bytes + 64 * level.inner_count + level.index_bytes + 65536;
    codec::Bytes stage[2];
    codec::ByteView shard = in;
    for (size_t i = w.after.size(); i-- > 0;) {
      codec::Bytes& next = stage[i % 2];
      next = w.after[i]->decode(shard, limit);
      shard = next;
    }
    if (shard.size() < level.index_bytes) {
      throw Error(ErrorCategory::kData,
                  fmt::format("a shard of {} bytes cannot hold its index of {} bytes", shard.size(),
                              level.index_bytes));
    }
    std::vector<uint64_t> entries(2 * level.inner_count);
    const codec::ByteView index = level.at_end ? shard.subspan(shard.size() - level.index_bytes)
                                               : shard.first(level.index_bytes);
    try {
      level.index_chain.decode(
          index, {reinterpret_cast<std::byte*>(entries.data()), 16 * level.inner_count},
          {8, level.index_shape});
    } catch (const Error& e) {
      throw Error(e.category(), fmt::format("shard index: {}", e.message()));
    }
    if (level.index_endian != native_byte_order()) swap_units(entries.data(), entries.size(), 8);
    // The inner chunks, placed in the array sharding saw (transposed back after).
    codec::Bytes arranged, inner;
    std::byte* target = out;
    if (!w.before.empty()) {
      arranged.resize(bytes);
      target = arranged.data();
    }
    const uint64_t inner_bytes = *Shape(level.inner).element_count() * element_;
    inner.resize(inner_bytes);
    std::vector<int64_t> at(level.per_shard.size(), 0), corner(at.size());
    const std::vector<int64_t> origin(at.size(), 0);
    uint64_t k = 0;
    do {
      const uint64_t offset = entries[2 * k], length = entries[2 * k + 1];
      if (offset == kEmpty && length == kEmpty) {
        for (uint64_t e = 0; e < inner_bytes; e += element_) {
          std::memcpy(inner.data() + e, stored_fill_.data(), element_);
        }
      } else {
        const auto end = checked_add(offset, length);
        if (!end || *end > shard.size()) {
          throw Error(ErrorCategory::kData,
                      fmt::format("shard index entry {} (offset {}, {} bytes) points outside the "
                                  "shard's {} bytes",
                                  k, offset, length, shard.size()));
        }
        decode_wrapped(depth + 1, shard.subspan(offset, length), inner.data());
      }
      for (size_t d = 0; d < at.size(); ++d) corner[d] = at[d] * level.inner[d];
      copy_box({inner.data(), level.inner, {}}, {target, level.shard, corner}, level.inner,
               element_);
      ++k;
    } while (next_position(at, origin, level.per_shard));
    if (!w.before.empty()) w.before.decode(arranged, {out, bytes}, {element_, w.shape});
  }

  std::string describe(const Blob& b) const {
    return levels_.empty() ? b.key
                           : fmt::format("{} bytes {}..{}", b.key, b.offset, b.offset + b.length);
  }

  // Where the read-grid chunk `grid` is stored, walking the shards' indexes; nullopt when it
  // was never written (a missing key, or an empty index entry). Without `sized`, an unsharded
  // chunk's size is not asked (a request to a server saved): the blob is its whole value.
  std::optional<Blob> locate(const std::vector<int64_t>& grid, bool sized) const {
    const size_t rank = grid.size();
    std::vector<int64_t> position(rank);  // the chunk's first element
    for (size_t d = 0; d < rank; ++d) position[d] = grid[d] * unit_[d];
    std::vector<int64_t> outer(rank);
    for (size_t d = 0; d < rank; ++d) outer[d] = position[d] / meta_.chunk_shape[d];
    const std::string relative = meta_.keys.key(outer);
    if (listing_.known_missing(relative)) {
      return std::nullopt;  // not in the store's listing: never written
    }
    Blob blob{key(relative), 0, 0};
    if (!sized && levels_.empty()) {
      blob.whole = true;
      blob.length = unit_bytes_ + unit_bytes_ / kExpansionDivisor + kExpansionBytes;
      return blob;
    }
    if (!read_outer_tail(blob)) return std::nullopt;
    for (const Level& level : levels_) {
      uint64_t index = 0;  // the inner chunk's place in the shard's grid, C order
      for (size_t d = 0; d < rank; ++d) {
        const int64_t within = position[d] % level.shard[d];
        index = index * static_cast<uint64_t>(level.per_shard[d]) +
                static_cast<uint64_t>(within / level.inner[d]);
      }
      const std::shared_ptr<const std::vector<uint64_t>> entries = shard_index(level, blob);
      const uint64_t offset = (*entries)[2 * index], length = (*entries)[2 * index + 1];
      if (offset == kEmpty && length == kEmpty) return std::nullopt;
      const auto end = checked_add(offset, length);
      if (!end || *end > blob.length) {
        throw Error(ErrorCategory::kData,
                    fmt::format("shard index entry {} (offset {}, {} bytes) points outside the "
                                "shard's {} bytes",
                                index, offset, length, blob.length),
                    Location::file(store_->where(blob.key)));
      }
      blob.offset += offset;
      blob.length = length;
    }
    return blob;
  }

  // Sizes the shard (or chunk) `blob` names; false when it is absent. A shard whose index
  // is at its end is sized by reading that index (one request on a remote store: the
  // value's last bytes, no HEAD first), which is then kept for shard_index.
  bool read_outer_tail(Blob& blob) const {
    if (levels_.empty() || !levels_.front().at_end) {
      const auto size = store_->size(blob.key);
      if (!size) return false;
      blob.length = *size;
      return true;
    }
    const Level& level = levels_.front();
    {
      std::lock_guard lock(mutex_);
      if (auto it = sizes_.find(blob.key); it != sizes_.end()) {
        blob.length = it->second;
        return true;
      }
    }
    codec::Bytes encoded(level.index_bytes);
    const std::optional<uint64_t> size =
        store_->read_tail(blob.key, level.index_bytes, encoded.data());
    if (!size) return false;
    blob.length = *size;
    if (*size < level.index_bytes) {
      throw Error(ErrorCategory::kData,
                  fmt::format("shard of {} bytes cannot hold its index of {} bytes", *size,
                              level.index_bytes),
                  Location::file(store_->where(blob.key)));
    }
    auto entries = decode_index(level, blob, encoded, *size - level.index_bytes);
    std::lock_guard lock(mutex_);
    if (indexes_.size() >= 256) indexes_.clear();  // memory stays a few indexes
    if (sizes_.size() >= 256) sizes_.clear();
    indexes_[std::make_tuple(blob.key, blob.offset, blob.length)] = std::move(entries);
    sizes_[blob.key] = *size;
    return true;
  }

  // The index entries `encoded` (read at `at` of the shard in `blob`), decoded to native
  // (offset, nbytes) pairs.
  std::shared_ptr<const std::vector<uint64_t>> decode_index(const Level& level, const Blob& blob,
                                                            const codec::Bytes& encoded,
                                                            uint64_t at) const {
    auto entries = std::make_shared<std::vector<uint64_t>>(2 * level.inner_count);
    try {
      level.index_chain.decode(
          encoded, {reinterpret_cast<std::byte*>(entries->data()), 16 * level.inner_count},
          {8, level.index_shape});
    } catch (const Error& e) {
      throw Error(e.category(), fmt::format("shard index: {}", e.message()),
                  Location::binary(store_->where(blob.key), at));
    }
    if (level.index_endian != native_byte_order()) swap_units(entries->data(), entries->size(), 8);
    return entries;
  }

  // The (offset, nbytes) pairs of the shard in `blob`, read and checked once, then kept.
  std::shared_ptr<const std::vector<uint64_t>> shard_index(const Level& level,
                                                           const Blob& blob) const {
    // A nested shard starts where its outer shard's first inner chunk does: the length tells
    // them apart.
    const auto cache_key = std::make_tuple(blob.key, blob.offset, blob.length);
    {
      std::lock_guard lock(mutex_);
      auto it = indexes_.find(cache_key);
      if (it != indexes_.end()) return it->second;
    }
    if (blob.length < level.index_bytes) {
      throw Error(ErrorCategory::kData,
                  fmt::format("shard of {} bytes cannot hold its index of {} bytes", blob.length,
                              level.index_bytes),
                  Location::file(store_->where(blob.key)));
    }
    codec::Bytes encoded(level.index_bytes);
    const uint64_t at = level.at_end ? blob.offset + blob.length - level.index_bytes : blob.offset;
    store_->read(blob.key, at, level.index_bytes, encoded.data());
    auto entries = decode_index(level, blob, encoded, at);
    std::lock_guard lock(mutex_);
    if (indexes_.size() >= 256) indexes_.clear();  // memory stays a few indexes
    indexes_[cache_key] = entries;
    return entries;
  }

  std::shared_ptr<const io::Store> store_;
  std::string prefix_;
  ArrayMetadata meta_;
  ChunkListing listing_;
  std::vector<Level> levels_;
  std::vector<Wrapped> wrapped_;        // levels decoded whole, below the read unit
  std::vector<int64_t> unit_;           // the read grid: the chunks found through the indexes
  std::vector<int64_t> innermost_;      // the innermost chunks (the unit, unless wrapped)
  codec::CodecChain chain_;             // the innermost chunks' codecs
  std::vector<std::byte> stored_fill_;  // the fill value in the stored byte order
  uint64_t element_ = 1;
  uint64_t unit_bytes_ = 0;
  DType native_;
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<std::string, uint64_t, uint64_t>,
                   std::shared_ptr<const std::vector<uint64_t>>>
      indexes_;
  mutable std::map<std::string, uint64_t> sizes_;  ///< shards sized by reading their index
};

}  // namespace

std::shared_ptr<model::ArraySource> make_array_source(std::shared_ptr<const io::Store> store,
                                                      std::string prefix, ArrayMetadata array) {
  if (array.dtype.kind() == DTypeKind::kVLen) {
    return make_vlen_array_source(std::move(store), std::move(prefix), std::move(array));
  }
  return std::make_shared<ZarrSource>(std::move(store), std::move(prefix), std::move(array));
}

}  // namespace dudley::zarr
