#include "chunk_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "datatype.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/chunk_rows.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"
#include "filters.hpp"
#include "source.hpp"

namespace dudley::hdf5 {
namespace {

// Registered ids of the compressing filters decoded here (The HDF Group's list).
constexpr H5Z_filter_t kZstd = 32015;
constexpr H5Z_filter_t kBzip2 = 307;

// Decoded chunks one read holds per batch, at most: the batch's chunks are decoded at once.
constexpr uint64_t kBatchBytes = uint64_t{32} << 20;

// A decoded chunk kept for the next read: its reader's id, its grid position and bytes.
struct KeptChunk {
  uint64_t reader = 0;
  std::vector<int64_t> grid;
  std::shared_ptr<const codec::Bytes> bytes;
};

// The chunk kept for the next read (see ChunkReader): one for the whole process, so that
// memory does not grow with the datasets open; chunks larger than kKeptBytes are not kept.
constexpr uint64_t kKeptBytes = uint64_t{64} << 20;
std::mutex g_kept_mutex;
KeptChunk g_kept;

// The kept chunk when reader `id` decoded it, else none.
KeptChunk kept_chunk(uint64_t id) {
  std::lock_guard lock(g_kept_mutex);
  return g_kept.reader == id ? g_kept : KeptChunk{};
}

void keep_chunk(const KeptChunk& chunk) {
  std::lock_guard lock(g_kept_mutex);
  g_kept = chunk;
}

std::atomic<uint64_t> g_next_reader{1};

}  // namespace

struct ChunkReader::Task {
  std::vector<const Segment*> segments;  // one per dimension
  std::vector<int64_t> grid;
  // Where its elements come from: its stored bytes fetched and decoded, the fill value, the
  // chunk kept from the last read, or its selected rows read from the file.
  enum class Source : uint8_t { kFetched, kMissing, kKept, kRows } source = Source::kFetched;
  unsigned mask = 0;            // the filters skipped for this chunk
  uint64_t address = 0;         // where its stored bytes start in the file
  std::byte* direct = nullptr;  // every element selected, one run of the output: here
};

bool chunk_info_agrees(hid_t ds) {
  H5D_chunk_index_t index = H5D_CHUNK_IDX_BTREE;
  if (H5Dget_chunk_index_type(ds, &index) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  if (index != H5D_CHUNK_IDX_EARRAY) return true;
  // An extensible array indexes chunks by their coordinates with the unlimited dimension
  // moved first. libhdf5 1.10's chunk queries (H5Dget_chunk_info*) do not move it where its
  // reads do: on HDF5's own h5fc_ext*.h5 they give one chunk's address for another's and
  // list chunks outside the extent, where H5Dread (and HDF5 2.0) read the fill value.
  Handle space(H5Dget_space(ds));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank)), max(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), max.data());
  return max[0] == H5S_UNLIMITED;
}

std::unique_ptr<ChunkReader> ChunkReader::make(const OpenFile& file, hid_t ds, std::string name,
                                               const DType& dtype,
                                               const std::vector<int64_t>& shape,
                                               const std::vector<int64_t>& chunk) {
  if (chunk.empty() || chunk.size() != shape.size() || !stored_as_is(dtype)) return nullptr;
  Handle dcpl(H5Dget_create_plist(ds));
  Handle ftype(H5Dget_type(ds));
  if (!dcpl.valid() || !ftype.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED ||
      H5Tget_size(ftype.get()) != dtype.size()) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  if (!chunk_info_agrees(ds)) return nullptr;
  unsigned options = 0;
  H5D_fill_time_t fill_time = H5D_FILL_TIME_IFSET;
  if (H5Pget_chunk_opts(dcpl.get(), &options) < 0 ||
      (options & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS) != 0 ||
      H5Pget_fill_time(dcpl.get(), &fill_time) < 0 || fill_time == H5D_FILL_TIME_NEVER) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  std::unique_ptr<ChunkReader> r(new ChunkReader());
  r->id_ = g_next_reader++;
  r->path_ = file.path;
  r->name_ = std::move(name);
  r->dtype_ = dtype;
  r->shape_ = shape;
  r->chunk_ = chunk;
  r->element_ = dtype.size();
  std::optional<uint64_t> bytes = r->element_;
  for (int64_t c : chunk) bytes = bytes ? checked_mul(*bytes, static_cast<uint64_t>(c)) : bytes;
  if (!bytes || *bytes == 0 || *bytes > (uint64_t{1} << 32)) return nullptr;  // HDF5's bound
  r->chunk_bytes_ = *bytes;
  // The pipeline: at most a shuffle, then at most one compressor (the order h5py, netCDF-4
  // and every HDF5 tool write); anything else is libhdf5's to decode.
  bool compressed = false;
  for (const PipelineFilter& f : filter_pipeline(dcpl.get())) {
    const H5Z_filter_t id = f.id;
    // A filter libhdf5 lacks here stays unreadable, as `ls` says it is: decoding it here
    // is a faster way to the same data, not another answer.
    if (H5Zfilter_avail(id) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return nullptr;
    }
    Step step;
    if (id == H5Z_FILTER_SHUFFLE && !compressed && r->steps_.empty()) {
      step.shuffle_element = !f.values.empty() && f.values[0] > 0 ? f.values[0] : r->element_;
      step.shuffle = codec::make_array_codec("shuffle", {{"elementsize", step.shuffle_element}});
    } else if ((id == H5Z_FILTER_DEFLATE || id == kZstd || id == kBzip2) && !compressed) {
      step.compressor = codec::make_bytes_codec(id == H5Z_FILTER_DEFLATE ? "zlib"
                                                : id == kZstd            ? "zstd"
                                                                         : "bz2");
      compressed = true;
    } else {
      H5Eclear2(H5E_DEFAULT);
      return nullptr;
    }
    r->steps_.push_back(std::move(step));
  }
  // What a chunk never written reads as: the fill value, zeros when none was set.
  const DType native = dtype.needs_swap() ? dtype.with_byte_order(native_byte_order()) : dtype;
  r->fill_.assign(r->element_, std::byte{0});
  H5D_fill_value_t state;
  Handle memtype = h5_type(native, true);
  if (H5Pfill_value_defined(dcpl.get(), &state) < 0 ||
      (state != H5D_FILL_VALUE_UNDEFINED &&
       H5Pget_fill_value(dcpl.get(), memtype.get(), r->fill_.data()) < 0)) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  // The size of the file holding the dataset, which an external link may make another.
  hsize_t file_size = 0;
  Handle own_file(H5Iget_file_id(ds));
  if (!own_file.valid() || H5Fget_filesize(own_file.get(), &file_size) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return nullptr;
  }
  r->file_size_ = file_size;
  // Rows of uncompressed chunks read straight from the file: only where the chunk index's
  // addresses are offsets in the file given (no user block shifts them).
  Handle plist(H5Fget_create_plist(own_file.get()));
  hsize_t user_block = 1;
  const ssize_t name_length = H5Fget_name(own_file.get(), nullptr, 0);
  std::string own_name(name_length > 0 ? static_cast<size_t>(name_length) : 0, '\0');
  if (name_length > 0) H5Fget_name(own_file.get(), own_name.data(), own_name.size() + 1);
  r->rows_readable_ = r->steps_.empty() && !file.remote && plist.valid() &&
                      H5Pget_userblock(plist.get(), &user_block) >= 0 && user_block == 0 &&
                      own_name == file.path;
  H5Eclear2(H5E_DEFAULT);
  return r;
}

std::vector<hsize_t> ChunkReader::first_element(const std::vector<int64_t>& grid) const {
  std::vector<hsize_t> offset(grid.size());
  for (size_t d = 0; d < grid.size(); ++d)
    offset[d] = static_cast<hsize_t>(grid[d]) * static_cast<hsize_t>(chunk_[d]);
  return offset;
}

bool ChunkReader::locate(hid_t ds, Task& task, uint64_t& size) const {
  const std::vector<int64_t>& grid = task.grid;
  const std::vector<hsize_t> offset = first_element(grid);
  Lock lock(library_mutex());
  haddr_t address = HADDR_UNDEF;
  hsize_t stored = 0;
  check(H5Dget_chunk_info_by_coord(ds, offset.data(), &task.mask, &address, &stored),
        fmt::format("cannot read {}: chunk ({}) is not in the chunk index", name_,
                    fmt::join(grid, ", ")),
        path_);
  if (address == HADDR_UNDEF) return false;
  task.address = address;
  // The index's size is a claim: more than the file holds is damage, not an allocation.
  if (stored > file_size_) {
    throw Error(
        ErrorCategory::kData,
        fmt::format("cannot read {}: chunk ({}): the chunk index says {} bytes, the file has {}",
                    name_, fmt::join(grid, ", "), stored, file_size_),
        Location::binary(path_, address));
  }
  size = stored;
  return true;
}

bool ChunkReader::fetch(hid_t ds, Task& task, codec::Bytes& raw) const {
  uint64_t size = 0;
  if (!locate(ds, task, size)) return false;
  const std::vector<int64_t>& grid = task.grid;
  const std::vector<hsize_t> offset = first_element(grid);
  Lock lock(library_mutex());
  raw.resize(size);
  uint32_t filters = 0;
  check(H5Dread_chunk(ds, H5P_DEFAULT, offset.data(), &filters, raw.data()),
        fmt::format("cannot read {}: chunk ({})", name_, fmt::join(grid, ", ")), path_);
  task.mask = filters;
  return true;
}

void ChunkReader::decode(const Task& task, const codec::Bytes& raw, std::byte* out,
                         codec::Bytes& scratch) const {
  const unsigned mask = task.mask;
  // The filters applied to this chunk, last applied first.
  std::vector<const Step*> undo;
  for (size_t i = steps_.size(); i-- > 0;) {
    if ((mask & (1u << i)) == 0) undo.push_back(&steps_[i]);
  }
  try {
    codec::ByteView in(raw.data(), raw.size());
    if (undo.empty()) {
      if (in.size() != chunk_bytes_) {
        throw Error(ErrorCategory::kData,
                    fmt::format("{} bytes stored, {} expected", in.size(), chunk_bytes_));
      }
      std::memcpy(out, in.data(), chunk_bytes_);
    }
    for (size_t k = 0; k < undo.size(); ++k) {
      std::byte* target = out;
      if (k + 1 < undo.size()) {
        scratch.resize(chunk_bytes_);
        target = scratch.data();
      }
      const Step& s = *undo[k];
      if (s.compressor) {
        s.compressor->decode_exact(in, {target, chunk_bytes_});
      } else {
        if (in.size() != chunk_bytes_) {
          throw Error(ErrorCategory::kData,
                      fmt::format("shuffle: {} bytes, {} expected", in.size(), chunk_bytes_));
        }
        s.shuffle->decode(
            in, {target, chunk_bytes_},
            {s.shuffle_element, {static_cast<int64_t>(chunk_bytes_ / s.shuffle_element)}});
      }
      in = codec::ByteView(target, chunk_bytes_);
    }
  } catch (const Error& e) {
    throw Error(e.category(),
                fmt::format("cannot read {}: chunk ({}): {}", name_, fmt::join(task.grid, ", "),
                            e.message()),
                Location::binary(path_, task.address));
  }
  if (dtype_.needs_swap()) swap_elements(out, chunk_bytes_ / element_, dtype_);
}

void ChunkReader::place(const Task& task, const Hyperslab& slab, const std::byte* chunk,
                        std::byte* out) const {
  ChunkRows{task.segments, slab, chunk_}.place(chunk, fill_.data(), element_, out);
}

bool ChunkReader::few_rows(const Task& task, const Hyperslab& slab) {
  if (!rows_readable_) return false;
  // Rows are worth reading apart when they span at most a quarter of the chunk: fewer bytes
  // read, and no copy of the whole chunk.
  if (ChunkRows{task.segments, slab, chunk_}.spanned_bytes(element_) > chunk_bytes_ / 4) {
    return false;
  }
  if (!rows_source_) rows_source_ = io::open_file(path_);
  return true;
}

bool ChunkReader::try_read_into(hid_t ds, const Hyperslab& slab, void* out_memory) {
  std::unique_lock own(mutex_, std::try_to_lock);
  if (!own.owns_lock()) return false;
  const size_t rank = shape_.size();
  auto* out = static_cast<std::byte*>(out_memory);
  std::vector<std::vector<Segment>> segments(rank);
  for (size_t d = 0; d < rank; ++d) {
    segments[d] = segments_of(slab.start[d], slab.count[d], slab.step(d), chunk_[d]);
    if (segments[d].empty()) return true;  // nothing selected
  }
  std::vector<uint64_t> out_stride(rank, element_);
  for (size_t d = rank; d-- > 1;)
    out_stride[d - 1] = out_stride[d] * static_cast<uint64_t>(slab.count[d]);
  auto& pool = ThreadPool::shared();
  const size_t threads = pool.helpers() + 1;
  const size_t batch =
      std::max<size_t>(threads, std::min<uint64_t>(4 * threads, kBatchBytes / chunk_bytes_));
  // This read's buffers, given back when it ends: a reader per dataset kept them, and a
  // file of many chunked datasets converted whole held every dataset's at once.
  std::vector<codec::Bytes> raw(batch), decoded(batch), scratch(batch);
  KeptChunk kept = kept_chunk(id_);
  std::vector<Task> tasks;
  tasks.reserve(batch);
  auto run = [&] {
    pool.parallel_for(tasks.size(), [&](size_t t) {
      Task& task = tasks[t];
      switch (task.source) {
        case Task::Source::kMissing:
          place(task, slab, nullptr, out);
          return;
        case Task::Source::kKept:
          place(task, slab, kept.bytes->data(), out);
          return;
        case Task::Source::kRows:
          read_chunk_rows(ChunkRows{task.segments, slab, chunk_}, dtype_, task.address, out,
                          [&](uint64_t offset, uint64_t length, std::byte* into) {
                            rows_source_->read(offset, length, into, name_);
                          });
          return;
        case Task::Source::kFetched:
          break;
      }
      if (task.direct) {
        decode(task, raw[t], task.direct, scratch[t]);
        return;
      }
      decoded[t].resize(chunk_bytes_);
      decode(task, raw[t], decoded[t].data(), scratch[t]);
      place(task, slab, decoded[t].data(), out);
    });
    // The last chunk decoded whole is kept: a reader walking the array in slices thinner
    // than the chunks asks for it again next.
    for (size_t t = tasks.size(); t-- > 0 && chunk_bytes_ <= kKeptBytes;) {
      if (tasks[t].source == Task::Source::kFetched && !tasks[t].direct) {
        kept = {id_, tasks[t].grid, std::make_shared<codec::Bytes>(std::move(decoded[t]))};
        keep_chunk(kept);
        break;
      }
    }
    tasks.clear();
  };
  std::vector<int64_t> at(rank, 0), first(rank, 0), end(rank);
  for (size_t d = 0; d < rank; ++d) end[d] = static_cast<int64_t>(segments[d].size());
  do {
    Task task;
    task.grid.resize(rank);
    task.segments.resize(rank);
    bool whole = true;
    for (size_t d = 0; d < rank; ++d) {
      const Segment& s = segments[d][static_cast<size_t>(at[d])];
      task.segments[d] = &s;
      task.grid[d] = s.chunk;
      // Every element of the chunk, in order, with rows as long as the output's.
      whole = whole && slab.step(d) == 1 && s.k1 - s.k0 == chunk_[d] &&
              slab.start[d] + s.k0 == s.chunk * chunk_[d] && (d == 0 || slab.count[d] == chunk_[d]);
    }
    uint64_t stored = 0;
    if (kept.bytes && task.grid == kept.grid) {
      task.source = Task::Source::kKept;
    } else if (!whole && few_rows(task, slab) && locate(ds, task, stored) &&
               stored == chunk_bytes_) {
      // A small part of an uncompressed chunk: its rows, from the file. (A chunk of another
      // size is fetched below, and decode() says what is wrong with it.)
      task.source = Task::Source::kRows;
    } else if (!fetch(ds, task, raw[tasks.size()])) {
      task.source = Task::Source::kMissing;
    } else if (whole) {
      task.direct = out + static_cast<uint64_t>(task.segments[0]->k0) * out_stride[0];
    }
    tasks.push_back(std::move(task));
    if (tasks.size() == batch) run();
  } while (next_position(at, first, end));
  if (!tasks.empty()) run();
  return true;
}

}  // namespace dudley::hdf5
