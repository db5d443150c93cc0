// Writing regions of an array in an existing Zarr directory store, in place: the chunks a
// region covers whole are encoded from the new values alone; the chunks it covers in part
// are read, merged and re-encoded (read-modify-write); every chunk is replaced atomically
// (a reader sees the old chunk or the new one) and a chunk that becomes all fill value is
// removed. v3 and v2 arrays, sharded ones included (a shard is rewritten whole).
#pragma once

#include <memory>
#include <string>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/formats/zarr/metadata.hpp"

namespace dudley::io {
class Store;
}  // namespace dudley::io

namespace dudley::zarr {

class RegionWriter {
 public:
  /// Opens the array `array_path` ("" or "/" for a store that is one array, else "a/b") of
  /// the directory store `store_path`. Throws Error(kUsage) for a path with empty, "." or
  /// ".." parts (it would leave the store), Error naming the document when the array's
  /// metadata is missing or malformed, Error(kType) for arrays this build does not write
  /// (string and bytes elements, nested sharding, codecs around sharding_indexed).
  RegionWriter(const std::string& store_path, const std::string& array_path);
  ~RegionWriter();
  RegionWriter(const RegionWriter&) = delete;
  RegionWriter& operator=(const RegionWriter&) = delete;

  /// The array's metadata as read.
  const ArrayMetadata& metadata() const { return meta_; }
  /// The element type write() takes: the array's, in native byte order.
  const DType& dtype() const { return native_; }

  /// Writes `data` over the elements `slab` selects: C-ordered, native byte order, slab.count
  /// elements per dimension (dimensions dropped by an integer index count 1). Steps must be 1
  /// (Error(kUsage) otherwise, and for a slab that does not fit the array). Returns the bytes
  /// of chunks written. A failure leaves every chunk either as it was or as written.
  uint64_t write(const Hyperslab& slab, const void* data);

 private:
  std::string root_;    // the store's directory
  std::string prefix_;  // the array's keys: "" or "a/b"
  std::shared_ptr<const io::Store> store_;
  ArrayMetadata meta_;
  DType native_;
};

}  // namespace dudley::zarr
