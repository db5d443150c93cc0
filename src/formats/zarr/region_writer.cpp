#include "dudley/formats/zarr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "chunk_encoder.hpp"
#include "chunk_files.hpp"
#include "dudley/core/box_copy.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/chunk_segments.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/io/store.hpp"
#include "reader.hpp"
#include "source.hpp"

namespace dudley::zarr {
namespace {

// Chunks merged before they are encoded together: at most this many bytes of them.
constexpr uint64_t kBatchBytes = uint64_t{64} << 20;

// "a/b" from "/a/b/", refusing parts that would leave the store.
std::string array_prefix(const std::string& path) {
  std::string out;
  size_t at = 0;
  while (at < path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    const std::string part = path.substr(at, slash - at);
    at = slash + 1;
    if (part.empty() && (slash == path.size() || out.empty())) continue;  // leading, trailing
    if (part.empty() || part == "." || part == "..") {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("array path '{}': '{}' is not a node name", path, part));
    }
    out += (out.empty() ? "" : "/") + part;
  }
  return out;
}

}  // namespace

// The array written: its store and its metadata.
struct RegionWriter::Array {
  std::string root;    // the store's directory
  std::string prefix;  // the array's keys: "" or "a/b"
  std::shared_ptr<const io::Store> store;
  ArrayMetadata meta;
  DType native;  // the element type write() takes
};

RegionWriter::RegionWriter(const std::string& store_path, const std::string& array_path)
    : array_(std::make_unique<Array>()) {
  array_->root = store_path;
  array_->prefix = array_prefix(array_path);
  array_->store = io::open_directory_store(array_->root);
  NodeMetadata node = read_node_metadata(*array_->store, array_->prefix);
  if (!node.array) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("'{}' is a group, not an array", array_->prefix.empty() ? "/" : array_->prefix),
        Location::file(array_->root));
  }
  array_->meta = std::move(*node.array);
  if (array_->meta.dtype.kind() == DTypeKind::kVLen) {
    throw Error(ErrorCategory::kType, "string and bytes arrays are not written by this build",
                Location::file(array_->root));
  }
  array_->native = array_->meta.dtype.needs_swap()
                       ? array_->meta.dtype.with_byte_order(native_byte_order())
                       : array_->meta.dtype;
  ChunkEncoder check(array_->meta);  // refuses what it cannot encode now, not at the first write
}

RegionWriter::~RegionWriter() = default;

const DType& RegionWriter::dtype() const {
  return array_->native;
}

const std::vector<int64_t>& RegionWriter::shape() const {
  return array_->meta.shape;
}

uint64_t RegionWriter::write(const Hyperslab& slab, const void* data) {
  slab.check_fits(array_->meta.shape);
  const size_t rank = array_->meta.shape.size();
  for (size_t d = 0; d < rank; ++d) {
    if (slab.step(d) != 1) {
      throw Error(
          ErrorCategory::kUsage,
          fmt::format("a region written must have steps of 1 (dimension {} has {})", d,
                      slab.step(d)),
          Location::file(array_->root + (array_->prefix.empty() ? "" : "/" + array_->prefix)));
    }
    if (slab.count[d] == 0) return 0;
  }
  const uint64_t element = array_->native.size();
  const std::vector<int64_t>& cs = array_->meta.chunk_shape;
  ChunkEncoder encoder(array_->meta);
  const uint64_t chunk_bytes = encoder.chunk_bytes();
  // A source of its own: shard indexes cached by an earlier write would be stale now.
  const std::shared_ptr<model::ArraySource> source =
      make_array_source(array_->store, array_->prefix, array_->meta);
  std::vector<int64_t> first(rank), end(rank);  // the chunks the region touches
  for (size_t d = 0; d < rank; ++d) {
    first[d] = slab.start[d] / cs[d];
    end[d] = (slab.start[d] + slab.count[d] - 1) / cs[d] + 1;
  }
  auto& pool = dudley::ThreadPool::shared();
  const size_t batch = static_cast<size_t>(
      std::clamp<uint64_t>(kBatchBytes / std::max<uint64_t>(chunk_bytes, 1), 1, 64));
  std::vector<codec::Bytes> buffers(batch);
  std::vector<std::byte*> raw;
  std::vector<std::string> keys;
  std::vector<std::optional<codec::Bytes>> encoded;
  std::vector<std::byte> existing;
  uint64_t written = 0;
  auto flush = [&] {
    encoder.encode(raw, encoded, pool);
    std::vector<uint64_t> sizes(keys.size(), 0);
    pool.parallel_for(keys.size(), [&](size_t k) {
      const std::string path = array_->root + "/" + keys[k];
      if (!encoded[k]) {
        remove_chunk(path);  // all fill value now: reads as that without a value
        return;
      }
      replace_chunk(path, *encoded[k]);
      sizes[k] = encoded[k]->size();
    });
    for (uint64_t s : sizes) written += s;
    raw.clear();
    keys.clear();
  };
  std::vector<int64_t> at = first;
  for (bool done = false; !done;) {
    // The chunk's box in the array, and the part of it the region covers.
    std::vector<int64_t> origin(rank), extent(rank), lo(rank), count(rank);
    bool whole = true;
    for (size_t d = 0; d < rank; ++d) {
      origin[d] = at[d] * cs[d];
      extent[d] = std::min(cs[d], array_->meta.shape[d] - origin[d]);
      lo[d] = std::max(slab.start[d], origin[d]);
      const int64_t hi = std::min(slab.start[d] + slab.count[d], origin[d] + extent[d]);
      count[d] = hi - lo[d];
      whole = whole && lo[d] == origin[d] && count[d] == extent[d];
    }
    codec::Bytes& buffer = buffers[raw.size()];
    buffer.resize(chunk_bytes);
    for (uint64_t e = 0; e < chunk_bytes; e += element) {
      std::memcpy(buffer.data() + e, array_->meta.fill.bytes.data(), element);
    }
    if (!whole) {  // the values the region leaves as they are
      existing.resize(*Shape(extent).element_count() * element);
      Hyperslab box;
      box.start = origin;
      box.count = extent;
      source->read_into(box, existing.data());
      copy_box({existing.data(), extent, {}}, {buffer.data(), cs, {}}, extent, element);
    }
    std::vector<int64_t> in_data(rank), in_chunk(rank);
    for (size_t d = 0; d < rank; ++d) {
      in_data[d] = lo[d] - slab.start[d];
      in_chunk[d] = lo[d] - origin[d];
    }
    copy_box({static_cast<const std::byte*>(data), slab.count, in_data},
             {buffer.data(), cs, in_chunk}, count, element);
    raw.push_back(buffer.data());
    keys.push_back((array_->prefix.empty() ? "" : array_->prefix + "/") +
                   array_->meta.keys.key(at));
    if (raw.size() == batch) flush();
    done = !next_position(at, first, end);
  }
  if (!raw.empty()) flush();
  return written;
}

}  // namespace dudley::zarr
