#include "chunk_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "datatype.hpp"
#include "dudley/core/box_copy.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/chunk_segments.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/model/sparse_chunks.hpp"
#include "filters.hpp"

namespace dudley::hdf5 {
namespace {

// Chunks one batch holds, raw and encoded, at most (but one chunk per thread at least).
constexpr uint64_t kBatchBytes = uint64_t{16} << 20;

}  // namespace

std::unique_ptr<ChunkWriter> ChunkWriter::make(hid_t ds, const DType& stored,
                                               const std::vector<int64_t>& shape) {
  if (shape.empty() || !stored_as_is(stored)) return nullptr;
  Handle dcpl(H5Dget_create_plist(ds));
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  unsigned options = 0;
  if (H5Pget_chunk_opts(dcpl.get(), &options) < 0 ||
      (options & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS) != 0) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  const int rank = H5Pget_chunk(dcpl.get(), 0, nullptr);
  if (rank != static_cast<int>(shape.size())) return nullptr;
  std::vector<hsize_t> chunk(shape.size());
  H5Pget_chunk(dcpl.get(), rank, chunk.data());
  std::unique_ptr<ChunkWriter> w(new ChunkWriter());
  w->stored_ = stored;
  w->shape_ = shape;
  w->chunk_.assign(chunk.begin(), chunk.end());
  w->element_ = stored.size();
  w->chunk_bytes_ = *Shape(w->chunk_).byte_size(w->element_);  // at most 4 GiB in HDF5
  // Shuffle (optional) then deflate: what this module and h5py write.
  const std::vector<PipelineFilter> pipeline = filter_pipeline(dcpl.get());
  for (size_t i = 0; i < pipeline.size(); ++i) {
    const H5Z_filter_t id = pipeline[i].id;
    const std::vector<unsigned>& values = pipeline[i].values;
    if (id == H5Z_FILTER_SHUFFLE && i == 0) {
      w->shuffle_element_ = !values.empty() && values[0] > 0 ? values[0] : w->element_;
      w->shuffle_ = codec::make_array_codec("shuffle", {{"elementsize", w->shuffle_element_}});
    } else if (id == H5Z_FILTER_DEFLATE && !w->deflate_) {
      w->deflate_ = codec::make_bytes_codec(
          "zlib", {{"level", !values.empty() ? std::min(values[0], 9u) : 6u}});
    } else {
      H5Eclear2(H5E_DEFAULT);
      return nullptr;
    }
  }
  return w;
}

void ChunkWriter::encode(codec::Bytes& raw, codec::Bytes& out, codec::Bytes& scratch) const {
  if (stored_.needs_swap()) swap_elements(raw.data(), raw.size() / element_, stored_);
  if (!shuffle_ && !deflate_) return;  // stored as they are
  codec::ByteView in(raw.data(), raw.size());
  if (shuffle_) {
    scratch.resize(raw.size());
    shuffle_->encode(in, {scratch.data(), scratch.size()},
                     {shuffle_element_, {static_cast<int64_t>(raw.size() / shuffle_element_)}});
    in = codec::ByteView(scratch.data(), scratch.size());
  }
  if (deflate_) {
    deflate_->encode_into(in, out);
  } else {  // a shuffle alone
    std::swap(out, scratch);
  }
}

void ChunkWriter::write(hid_t ds, model::ArraySource& source, const std::string& path,
                        const std::string& name, const std::function<void(uint64_t)>& progress,
                        const model::StoredChunks* stored) {
  const size_t rank = shape_.size();
  std::vector<int64_t> grid(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (shape_[d] == 0) return;  // no chunks
    grid[d] = (shape_[d] + chunk_[d] - 1) / chunk_[d];
  }
  auto& pool = ThreadPool::shared();
  const size_t threads = pool.helpers() + 1;
  const size_t batch = std::max<size_t>(
      threads, std::min<uint64_t>(64, kBatchBytes / std::max<uint64_t>(chunk_bytes_, 1)));
  std::vector<codec::Bytes> raw(batch), encoded(batch), scratch(batch);
  std::vector<std::vector<int64_t>> positions;
  codec::Bytes piece;
  uint64_t carried = 0;
  auto flush = [&] {
    const bool filtered = shuffle_ || deflate_;
    pool.parallel_for(positions.size(), [&](size_t k) { encode(raw[k], encoded[k], scratch[k]); });
    std::vector<hsize_t> offset(rank);
    for (size_t k = 0; k < positions.size(); ++k) {
      for (size_t d = 0; d < rank; ++d)
        offset[d] = static_cast<hsize_t>(positions[k][d]) * static_cast<hsize_t>(chunk_[d]);
      const codec::Bytes& bytes = filtered ? encoded[k] : raw[k];
      check(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, offset.data(), bytes.size(), bytes.data()),
            fmt::format("cannot write {}: chunk ({})", name, fmt::join(positions[k], ", ")), path,
            ErrorCategory::kIo);
    }
    positions.clear();
    progress(carried);
    carried = 0;
  };
  std::vector<int64_t> at(rank, 0);
  const std::vector<int64_t> origin(rank, 0);
  // Only the chunks holding stored data, in order, when the source says which.
  std::optional<model::StoredChunks> only;
  if (stored) only = model::chunks_touching(*stored, shape_, chunk_);
  uint64_t listed = 0;  // the next of `only`'s chunks
  auto next = [&] {
    if (!only) return next_position(at, origin, grid);
    if (++listed >= only->chunks) return false;
    const auto from = only->positions.begin() + static_cast<std::ptrdiff_t>(listed * rank);
    at.assign(from, from + static_cast<std::ptrdiff_t>(rank));
    return true;
  };
  if (only) {
    if (only->chunks == 0) return;
    at.assign(only->positions.begin(), only->positions.begin() + static_cast<std::ptrdiff_t>(rank));
  }
  do {
    // The chunk's part of the array; an edge chunk's rest (which no reader sees) is zeros.
    Hyperslab slab;
    bool edge = false;
    for (size_t d = 0; d < rank; ++d) {
      slab.start.push_back(at[d] * chunk_[d]);
      slab.count.push_back(std::min(chunk_[d], shape_[d] - slab.start.back()));
      edge = edge || slab.count[d] != chunk_[d];
    }
    codec::Bytes& buffer = raw[positions.size()];
    buffer.resize(chunk_bytes_);
    const uint64_t bytes = *Shape(slab.count).byte_size(element_);
    if (!edge) {
      source.read_into(slab, buffer.data());
    } else {
      piece.resize(bytes);
      source.read_into(slab, piece.data());
      std::memset(buffer.data(), 0, buffer.size());
      copy_box({piece.data(), slab.count, {}}, {buffer.data(), chunk_, {}}, slab.count, element_);
    }
    carried += bytes;
    positions.push_back(at);
    if (positions.size() == batch) flush();
  } while (next());
  if (!positions.empty()) flush();
}

}  // namespace dudley::hdf5
