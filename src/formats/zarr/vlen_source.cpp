// The data of a Zarr `string` or `bytes` array: the chunks a selection touches decoded (on
// every core) into their items, the selected ones gathered in C order into one array whose
// elements point into its own heap (dudley::VLenArrayBuilder). Missing chunks read as the
// fill value. Such arrays are read whole per selection (read()); read_into, which writes
// fixed-size elements into a caller's buffer, has nothing to write them as.
#include <fmt/format.h>

#include <string>

#include "chunk_listing.hpp"
#include "dudley/core/chunk_rows.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/core/vlen.hpp"
#include "source.hpp"
#include "vlen_chunks.hpp"

namespace dudley::zarr {
namespace {

// A decoded string chunk is at most this big: its size is known only once decoded, so a
// small chunk that inflates without end stops here (chunks are decoded on every core).
constexpr uint64_t kMaxDecodedChunk = uint64_t{256} << 20;
// Its encoded value: no compressor here expands text by more than a little.
constexpr uint64_t kMaxEncodedChunk = kMaxDecodedChunk + kMaxDecodedChunk / 32;

class VLenZarrSource final : public model::ArraySource {
 public:
  VLenZarrSource(std::shared_ptr<const io::Store> store, std::string prefix, ArrayMetadata meta)
      : store_(std::move(store)),
        prefix_(std::move(prefix)),
        meta_(std::move(meta)),
        codec_(meta_.codecs) {
    if (!meta_.codecs.array_to_array.empty()) {
      throw Error(ErrorCategory::kType,
                  "array -> array codecs (transpose) of string and bytes arrays are not read by "
                  "this build");
    }
    chunk_items_ = *Shape(meta_.chunk_shape).element_count();
  }

  NDArray read() override { return read(Hyperslab::all(meta_.shape)); }

  NDArray read(const Hyperslab& slab) override {
    slab.check_fits(meta_.shape);
    const size_t rank = meta_.shape.size();
    const Shape result(slab.result_shape());
    const uint64_t total = *Shape(slab.count).element_count();
    std::vector<std::string> items(total);
    std::vector<std::vector<Segment>> segments(rank);
    for (size_t d = 0; d < rank; ++d) {
      segments[d] = segments_of(slab.start[d], slab.count[d], slab.step(d), meta_.chunk_shape[d]);
    }
    if (total > 0) {
      // Every touched chunk is one task: its selected items land in their places of `items`.
      std::vector<std::vector<const Segment*>> tasks;
      std::vector<int64_t> at(rank, 0), first(rank, 0), end(rank);
      for (size_t d = 0; d < rank; ++d) end[d] = static_cast<int64_t>(segments[d].size());
      do {
        std::vector<const Segment*> task(rank);
        for (size_t d = 0; d < rank; ++d) task[d] = &segments[d][static_cast<size_t>(at[d])];
        tasks.push_back(std::move(task));
      } while (next_position(at, first, end));
      dudley::ThreadPool::shared().parallel_for(tasks.size(),
                                                [&](size_t t) { gather(tasks[t], slab, items); });
    }
    VLenArrayBuilder builder(meta_.dtype, total);
    for (const std::string& item : items) builder.append(item.data(), item.size());
    return builder.finish(result);
  }

  void read_into(const Hyperslab&, void*) override {
    throw Error(ErrorCategory::kUsage,
                "string and bytes arrays are read with read(): their elements have no fixed size",
                Location::file(store_->where(key("zarr.json"))));
  }

  model::ReadUnit read_unit() const override {
    return {meta_.chunk_shape, chunk_items_ * meta_.dtype.size()};
  }

  // The chunks the store holds, listed once (the fill value as its UTF-8 or raw bytes).
  std::optional<model::StoredChunks> stored_chunks() override {
    return listing_.list(*store_, prefix_, meta_);
  }

 private:
  std::string key(const std::string& name) const {
    return prefix_.empty() ? name : prefix_ + "/" + name;
  }

  // Decodes the chunk of `task` and puts its selected items in `items` (C order of the
  // selection).
  void gather(const std::vector<const Segment*>& task, const Hyperslab& slab,
              std::vector<std::string>& items) const {
    const size_t rank = task.size();
    std::vector<int64_t> grid(rank);
    for (size_t d = 0; d < rank; ++d) grid[d] = task[d]->chunk;
    const std::string relative = meta_.keys.key(grid);
    const std::string chunk_key = key(relative);
    codec::Bytes encoded, decoded;
    std::vector<std::string_view> chunk;
    // One request for the whole value (a server is not asked its size first); none for a
    // chunk the store's listing lacks.
    io::RangeRequest request{chunk_key, 0, kMaxEncodedChunk, true, &encoded, true};
    if (listing_.known_missing(relative)) {
      request.found = false;
    } else {
      store_->read_many({&request, 1});
    }
    const bool found = request.found;
    if (found) {
      try {
        chunk = codec_.decode(encoded, chunk_items_, kMaxDecodedChunk, decoded);
      } catch (const Error& e) {
        throw Error(e.category(), fmt::format("chunk {}: {}", chunk_key, e.message()),
                    Location::file(store_->where(chunk_key)));
      }
    }
    const std::string_view fill(reinterpret_cast<const char*>(meta_.fill.bytes.data()),
                                meta_.fill.bytes.size());
    const ChunkRows rows{task, slab, meta_.chunk_shape};
    const int64_t length = rows.length(), step = rows.step();
    rows.each([&](uint64_t from, uint64_t to) {
      for (int64_t i = 0; i < length; ++i) {
        const std::string_view item =
            found ? chunk[static_cast<uint64_t>(static_cast<int64_t>(from) + i * step)] : fill;
        std::string& target = items[to + static_cast<uint64_t>(i)];
        if (item.empty()) {
          target.clear();  // its data may be null
        } else {
          target.assign(item.data(), item.size());
        }
      }
    });
  }

  std::shared_ptr<const io::Store> store_;
  std::string prefix_;
  ArrayMetadata meta_;
  VLenChunkCodec codec_;
  uint64_t chunk_items_ = 1;
  ChunkListing listing_;
};

}  // namespace

std::shared_ptr<model::ArraySource> make_vlen_array_source(std::shared_ptr<const io::Store> store,
                                                           std::string prefix,
                                                           ArrayMetadata array) {
  return std::make_shared<VLenZarrSource>(std::move(store), std::move(prefix), std::move(array));
}

}  // namespace dudley::zarr
