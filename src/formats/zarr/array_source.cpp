#include "array_source.hpp"

#include "segments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "dudley/codec/chain.hpp"
#include "dudley/codec/thread_pool.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

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

// Where a chunk's encoded bytes are: a range of a key's value.
struct Blob {
  std::string key;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool whole = false;  // the key's whole value, its size not asked (at most `length` bytes)
};

class ZarrSource final : public model::ArraySource {
 public:
  ZarrSource(std::shared_ptr<const Store> store, std::string prefix, ArrayMetadata meta)
      : store_(std::move(store)), prefix_(std::move(prefix)), meta_(std::move(meta)) {
    const Pipeline* p = &meta_.codecs;
    std::vector<int64_t> outer = meta_.chunk_shape;
    while (p->sharding) {
      if (!p->array_to_array.empty() || !p->bytes_to_bytes.empty()) {
        throw Error(ErrorCategory::kType,
                    "codecs before or after sharding_indexed are not read by this build",
                    Location::file(store_->where(key("zarr.json"))));
      }
      const Sharding& s = *p->sharding;
      Level level;
      level.shard = outer;
      level.inner = s.chunk_shape;
      for (size_t d = 0; d < outer.size(); ++d) {
        level.per_shard.push_back(outer[d] / s.chunk_shape[d]);
        level.inner_count *= static_cast<uint64_t>(level.per_shard.back());
      }
      level.index_chain = s.index_codecs.chain();
      level.index_endian = s.index_codecs.endian;
      level.index_shape = level.per_shard;
      level.index_shape.push_back(2);
      level.index_bytes = 16 * level.inner_count + 4 * s.index_codecs.bytes_to_bytes.size();
      level.at_end = s.index_at_end;
      levels_.push_back(std::move(level));
      outer = s.chunk_shape;
      p = &s.codecs;
    }
    unit_ = outer;
    chain_ = p->chain();
    element_ = meta_.dtype.size();
    native_ =
        meta_.dtype.needs_swap() ? meta_.dtype.with_byte_order(native_byte_order()) : meta_.dtype;
    unit_bytes_ = *Shape(unit_).element_count() * element_;  // checked by the metadata
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
    // fetched first, many transfers at once; a local one's is read by the decoding threads.
    auto& pool = codec::ThreadPool::shared();
    const bool remote = store_->remote();
    const size_t batch = remote
                             ? static_cast<size_t>(std::clamp<uint64_t>(
                                   kRemoteBatchBytes / std::max<uint64_t>(unit_bytes_, 1), 8, 256))
                             : 4 * (pool.helpers() + 1);
    std::vector<std::vector<const Segment*>> tasks;
    std::vector<int64_t> at(rank, 0), first(rank, 0), end(rank);
    for (size_t d = 0; d < rank; ++d) end[d] = static_cast<int64_t>(segments[d].size());
    std::vector<std::optional<Blob>> blobs;
    std::vector<codec::Bytes> fetched;
    std::vector<RangeRequest> requests;
    auto run = [&] {
      if (!remote) {
        pool.parallel_for(tasks.size(), [&](size_t t) {
          read_chunk(tasks[t], slab, out_stride, static_cast<std::byte*>(out), nullptr);
        });
        tasks.clear();
        return;
      }
      blobs.assign(tasks.size(), std::nullopt);
      pool.parallel_for(tasks.size(),
                        [&](size_t t) { blobs[t] = locate(grid_of(tasks[t]), false); });
      fetched.resize(tasks.size());
      requests.clear();
      std::vector<size_t> of;  // the task of each request
      for (size_t t = 0; t < tasks.size(); ++t) {
        if (!blobs[t]) continue;
        const Blob& b = *blobs[t];
        requests.push_back({b.key, b.offset, b.length, b.whole, &fetched[t], true});
        of.push_back(t);
      }
      store_->read_many(requests);
      for (size_t i = 0; i < requests.size(); ++i) {
        if (!requests[i].found) blobs[of[i]].reset();  // a missing chunk: fill value
      }
      pool.parallel_for(tasks.size(), [&](size_t t) {
        read_chunk(tasks[t], slab, out_stride, static_cast<std::byte*>(out),
                   blobs[t] ? &*blobs[t] : nullptr, &fetched[t]);
      });
      tasks.clear();
    };
    do {
      std::vector<const Segment*> task(rank);
      for (size_t d = 0; d < rank; ++d) task[d] = &segments[d][static_cast<size_t>(at[d])];
      tasks.push_back(std::move(task));
      if (tasks.size() == batch) run();
    } while (next_position(at, first, end));
    if (!tasks.empty()) run();
  }

  model::ReadUnit read_unit() const override { return {unit_, unit_bytes_}; }

 private:
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
        chain_.decode(bytes, {target, unit_bytes_}, {element_, unit_});
      } catch (const Error& e) {
        throw Error(e.category(), fmt::format("chunk {}: {}", describe(*blob), e.message()),
                    Location::file(store_->where(blob->key)));
      }
      if (meta_.dtype.needs_swap()) swap_elements(target, unit_bytes_ / element_, meta_.dtype);
      if (direct) return;
      chunk = decoded.data();
    }
    // Chunk-local strides of the read unit, and where each dimension's selection starts.
    std::vector<uint64_t> unit_stride(rank, element_);
    for (size_t d = rank; d-- > 1;) {
      unit_stride[d - 1] = unit_stride[d] * static_cast<uint64_t>(unit_[d]);
    }
    std::vector<int64_t> k(rank);
    for (size_t d = 0; d < rank; ++d) k[d] = task[d]->k0;
    const int64_t last_step = rank ? slab.step(rank - 1) : 1;
    const int64_t run = rank ? task[rank - 1]->k1 - task[rank - 1]->k0 : 1;
    for (;;) {
      uint64_t src = 0, dst = 0;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t p = slab.start[d] + k[d] * slab.step(d) - task[d]->chunk * unit_[d];
        src += static_cast<uint64_t>(p) * unit_stride[d];
        dst += static_cast<uint64_t>(k[d]) * out_stride[d];
      }
      if (!chunk) {
        for (int64_t i = 0; i < run; ++i) {
          std::memcpy(out + dst + static_cast<uint64_t>(i) * element_, meta_.fill.bytes.data(),
                      element_);
        }
      } else if (last_step == 1) {
        std::memcpy(out + dst, chunk + src, static_cast<uint64_t>(run) * element_);
      } else {
        const int64_t src_step = last_step * static_cast<int64_t>(element_);
        for (int64_t i = 0; i < run; ++i) {
          std::memcpy(out + dst + static_cast<uint64_t>(i) * element_,
                      chunk + static_cast<int64_t>(src) + i * src_step, element_);
        }
      }
      // The next position of the dimensions before the last.
      size_t d = rank > 0 ? rank - 1 : 0;
      while (d > 0) {
        --d;
        if (++k[d] < task[d]->k1) break;
        k[d] = task[d]->k0;
        if (d == 0) return;
      }
      if (rank <= 1) return;
    }
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
    Blob blob{key(meta_.keys.key(outer)), 0, 0};
    if (!sized && levels_.empty()) {
      blob.whole = true;
      blob.length = unit_bytes_ + unit_bytes_ / kExpansionDivisor + kExpansionBytes;
      return blob;
    }
    const auto size = store_->size(blob.key);
    if (!size) return std::nullopt;
    blob.length = *size;
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
    std::lock_guard lock(mutex_);
    if (indexes_.size() >= 256) indexes_.clear();  // memory stays a few indexes
    indexes_[cache_key] = entries;
    return entries;
  }

  std::shared_ptr<const Store> store_;
  std::string prefix_;
  ArrayMetadata meta_;
  std::vector<Level> levels_;
  std::vector<int64_t> unit_;  // the read grid: the innermost chunk shape
  codec::CodecChain chain_;    // the innermost chunks' codecs
  uint64_t element_ = 1;
  uint64_t unit_bytes_ = 0;
  DType native_;
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<std::string, uint64_t, uint64_t>,
                   std::shared_ptr<const std::vector<uint64_t>>>
      indexes_;
};

}  // namespace

std::shared_ptr<model::ArraySource> make_array_source(std::shared_ptr<const Store> store,
                                                      std::string prefix, ArrayMetadata array) {
  if (array.dtype.kind() == DTypeKind::kVLen) {
    return make_vlen_array_source(std::move(store), std::move(prefix), std::move(array));
  }
  return std::make_shared<ZarrSource>(std::move(store), std::move(prefix), std::move(array));
}

}  // namespace dudley::zarr
