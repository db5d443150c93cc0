// Reading a chunked HDF5 dataset by its chunks, decoded here rather than by libhdf5.
//
// libhdf5 decodes on the calling thread, under the one lock every call takes (Debian's
// library is not thread-safe), with zlib; and a read that covers part of a chunk decodes the
// whole chunk again unless the dataset's chunk cache (1 MiB by default) holds it, so that
// reading an 8 MiB chunk as eight slices decodes it eight times. Here each chunk's stored
// bytes are fetched through the library (H5Dread_chunk: a copy, under the lock), and decoded
// by the codec layer (libdeflate, zstd, bzip2, the byte shuffle) on every core, each chunk
// once per read; the last chunk decoded (one for the whole process) is kept for the next
// read, which in a writer's slice-by-slice walk usually wants it again. A chunk stored without
// filters, of which a read wants a small part (a picture's every k-th row), is read row by row
// from the file instead (libhdf5 itself reads such a selection one element at a time).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/io/byte_source.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

struct OpenFile;

/// Whether libhdf5's answers about dataset `ds`'s chunks (H5Dget_chunk_info*, H5Dread_chunk)
/// agree with what its reads give: not for an extensible-array index whose unlimited dimension
/// is not the first (libhdf5 1.10 confuses its chunks). Call under the library lock.
bool chunk_info_agrees(hid_t ds);

class ChunkReader {
 public:
  /// A reader for the open dataset `ds` (named `name`, for errors) of `file` (stored type `dtype`,
  /// current `shape`, chunks of `chunk`), or null when libhdf5 must read it: a layout other than
  /// chunked, filters other than deflate, shuffle, zstd and bzip2 (or two compressors), chunks at
  /// the edges stored unfiltered, a fill value never written, or elements other than numbers (bool,
  /// integers, floats, complex). Call under the library lock.
  static std::unique_ptr<ChunkReader> make(const OpenFile& file, hid_t ds, std::string name,
                                           const DType& dtype, const std::vector<int64_t>& shape,
                                           const std::vector<int64_t>& chunk);

  /// Reads `slab` (every step positive; dimensions kept) of dataset `ds` into `out`: the
  /// selected elements in C order, native byte order. Chunks never written read as the
  /// fill value. Throws Error(kData) naming the chunk for damaged stored bytes. Returns
  /// false, having done nothing, while another thread's read holds the decoder: that thread
  /// may wait for the library lock the caller holds (a writer holds it while it reads its
  /// sources), so the caller reads through the library instead of waiting.
  bool try_read_into(hid_t ds, const Hyperslab& slab, void* out);

 private:
  // One filter of the pipeline, in the order it was applied when writing.
  struct Step {
    std::unique_ptr<codec::BytesCodec> compressor;  ///< deflate, zstd or bzip2
    std::unique_ptr<codec::ArrayCodec> shuffle;     ///< or the byte shuffle
    size_t shuffle_element = 0;
  };
  // A chunk of a read: its grid position and the segments of the selection in it.
  struct Task;

  ChunkReader() = default;
  // Fetches the stored bytes of the chunk at `task`'s grid position into `raw` (under the
  // library lock); false for a chunk never written. Sets the task's filter mask and address.
  bool fetch(hid_t ds, Task& task, codec::Bytes& raw) const;
  // Undoes the filters of `raw` (those the task's mask does not skip) into `out` (one chunk);
  // errors name the chunk, the dataset and where the chunk lies in the file.
  void decode(const Task& task, const codec::Bytes& raw, std::byte* out,
              codec::Bytes& scratch) const;
  // Copies the selected elements of the decoded chunk `chunk` (or the fill value, for null)
  // to their places in `out`.
  void place(const Task& task, const Hyperslab& slab, const std::byte* chunk, std::byte* out) const;
  // Whether the selected elements of `task`'s chunk are better read as rows from the file
  // (rows_readable_, a small part of the chunk); opens the file's bytes on first use.
  bool few_rows(const Task& task, const Hyperslab& slab);
  // The dataset coordinates of the first element of the chunk at grid position `grid`.
  std::vector<hsize_t> first_element(const std::vector<int64_t>& grid) const;
  // Finds where the chunk at `task`'s grid position is stored (its address and size), without
  // reading it; false for a chunk never written.
  bool locate(hid_t ds, Task& task, uint64_t& size) const;

  std::string path_, name_;
  DType dtype_;  // as stored
  std::vector<int64_t> shape_, chunk_;
  uint64_t element_ = 0, chunk_bytes_ = 0, file_size_ = 0;
  std::vector<Step> steps_;
  std::vector<std::byte> fill_;  // one element, native order
  // Whether a sparse selection's rows of a chunk are read from the file here rather than the
  // chunk whole: chunks stored without filters, in the file given (not through an external
  // link, not from a URL), which has no user block; and the file's bytes, opened on first use.
  bool rows_readable_ = false;
  std::shared_ptr<io::ByteSource> rows_source_;
  uint64_t id_ = 0;   // names this reader's chunk in the process's kept chunk
  std::mutex mutex_;  // one read at a time (try_read_into)
};

}  // namespace dudley::hdf5
