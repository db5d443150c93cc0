// Writing a chunked HDF5 dataset by its chunks, encoded here rather than by libhdf5.
//
// libhdf5 compresses each chunk on the calling thread, with zlib: writing 256 MiB with
// deflate took 7 s on one core. Here the chunks of a batch are read from the source, filtered
// by the codec layer (the byte shuffle, libdeflate) on every core, and handed to the library
// whole (H5Dwrite_chunk), which only stores them. Any HDF5 reader decodes them as its own.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/model/tree.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

class ChunkWriter {
 public:
  /// A writer for the dataset `ds` just created (elements of `stored` type, byte order
  /// included, of `shape`), or null when libhdf5 must write it: a layout other than chunked,
  /// filters other than shuffle then deflate, or elements other than numbers. Unfiltered
  /// chunks are written whole too: the library would copy each through its chunk cache.
  /// Call under the library lock.
  static std::unique_ptr<ChunkWriter> make(hid_t ds, const DType& stored,
                                           const std::vector<int64_t>& shape);

  /// Writes every chunk of the dataset from `source` (of the dataset's shape; read in the
  /// machine's byte order), a batch of
  /// chunks at a time: read in the source's order, filtered on every core, stored in order.
  /// `progress` gets the bytes of elements each batch carried. Errors name the file `path`
  /// and the dataset `name` ("cannot write /x: chunk (1, 0)"). Call under the library lock
  /// (the encoding threads never call the library).
  /// With `stored` (the source's stored chunks, whose missing ones read as the dataset's
  /// fill value), only the chunks touching them are written.
  void write(hid_t ds, model::ArraySource& source, const std::string& path, const std::string& name,
             const std::function<void(uint64_t)>& progress,
             const model::StoredChunks* stored = nullptr);

 private:
  ChunkWriter() = default;
  // Applies the filters to the chunk `raw` (in the machine's byte order; swapped in place to
  // the stored one first) into `out`.
  void encode(codec::Bytes& raw, codec::Bytes& out, codec::Bytes& scratch) const;

  DType stored_;
  std::vector<int64_t> shape_, chunk_;
  uint64_t element_ = 0, chunk_bytes_ = 0;
  std::unique_ptr<codec::ArrayCodec> shuffle_;  // null: none
  size_t shuffle_element_ = 0;
  std::unique_ptr<codec::BytesCodec> deflate_;  // null: none
};

}  // namespace dudley::hdf5
