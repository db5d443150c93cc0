// Zarr v3 and v2: stores of JSON metadata (zarr.json; v2's .zgroup, .zarray, .zattrs) and
// chunks, read into the model (groups and arrays with attributes, dimension names, the
// chunk grid and codecs as storage, data read on demand) and written from it (chunks
// encoded on every core; the store built in a temporary sibling and moved into place
// whole), for zarr-python 2 and 3, zarrita and every other reader.
//
// The public face of the format, shaped as every format's is (docs/development.md):
// ZarrOpenOptions, ZarrSaveOptions, open_zarr, write_zarr and register_zarr_format.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/format.hpp"
#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::zarr {

/// How Zarr stores are read.
struct ZarrOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "zarr";
  /// A store on a web server: the most one request may take (--http-timeout), and all of a
  /// store's requests together (--http-deadline, 0: none), in seconds; unset: the
  /// environment's (DUDLEY_HTTP_TIMEOUT, DUDLEY_HTTP_DEADLINE), else io::HttpLimits' defaults.
  std::optional<double> http_timeout;
  std::optional<double> http_deadline;
};

/// How Zarr stores are written.
struct ZarrSaveOptions : FormatOptions {
  static constexpr const char* kFormat = "zarr";
  /// The bytes -> bytes codec of every array: "zstd", "gzip", "blosc" (lz4 with byte
  /// shuffle), "lz4" (numcodecs' LZ4, "numcodecs.lz4" in v3) or "none".
  std::string compressor = "zstd";
  /// Its level; -1: zstd 3, gzip 5, blosc 5.
  int level = -1;
  /// The chunk shape of the arrays of its rank (one extent per dimension, each at least 1);
  /// other arrays (all, when empty) are chunked near `chunk_bytes`, cutting the slowest
  /// dimensions first.
  std::vector<int64_t> chunk_shape;
  /// The shard shape of the arrays of its rank (sharding_indexed, v3 only): each shard one
  /// key holding its chunks (chunk_shape, which must divide it, or chosen near chunk_bytes
  /// among its divisors) and their index at its end. Empty: no sharding.
  std::vector<int64_t> shard_shape;
  /// The size chunks are chosen near when chunk_shape is empty.
  uint64_t chunk_bytes = uint64_t{1} << 20;
  /// Byte-shuffle every chunk of fixed-size elements before its compressor (numcodecs'
  /// Shuffle by the element size: "numcodecs.shuffle" in v3, a "shuffle" filter in v2).
  bool shuffle = false;
  /// Append a CRC-32C to every chunk (the crc32c codec), checked by readers (v3 only).
  bool checksums = false;
  /// Write the store's consolidated metadata (when its root is a group): every node's
  /// metadata in the root zarr.json (v3) or in .zmetadata (v2), so that a reader of a web
  /// server, which cannot list directories, finds every node.
  bool consolidated = true;
  /// 3, or 2: a v2 store (.zgroup, .zarray, .zattrs; chunk keys "0.0"; dimension names as
  /// xarray's _ARRAY_DIMENSIONS attribute) for zarr-python 2 and other v2 readers.
  int zarr_format = 3;
  /// A Zarr source's arrays keep their chunk shape (unless sharded) when no chunk option
  /// is given (chunk_shape, chunk_bytes, shard_shape: the CLI clears this when one is).
  bool keep_source_chunks = true;
  /// ...and their compressor and filters when no codec option is given (compressor, level,
  /// shuffle, checksums), where the version written has them.
  bool keep_source_codecs = true;
};

/// The store at `path`: a directory, or a store on a web server when `path` is an http://
/// or https:// URL (its requests within `options`' limits). The tree holds the root node
/// (a group or an array) and every node under it that has its own metadata (implicit
/// groups, directories without zarr.json, are skipped). A node whose metadata cannot be
/// read, or whose data this build cannot read, is kept with its `error` set, so the rest of
/// the store still lists. Throws Error naming the root's metadata when the root itself
/// cannot be read. `common` is accepted for the same shape as every format's open.
model::Tree open_zarr(const std::string& path, const ZarrOpenOptions& options = {},
                      const OpenOptions& common = {});

/// The same for a store already open (io::memory_store in tests, a store of any driver).
model::Tree open_zarr(const std::shared_ptr<const io::Store>& store,
                      const ZarrOpenOptions& options = {}, const OpenOptions& common = {});

/// Writes `tree` as the store `destination`: groups become groups, lists groups whose
/// members are named by index, arrays chunked and encoded with their attributes and
/// dimension names. Returns the store written (its bytes: metadata and chunks), in `notes`
/// what the store keeps differently (list structure, chunking) and in `lost` what a lossy
/// save left out. Throws Error(kType) naming an array whose type Zarr cannot hold (fixed
/// strings in v3, structs, pointers), and LossError for items the store has no place for
/// (attributes that are typed arrays, masks, pointees) unless `common.lossy`; nothing is
/// then left at `destination`.
SaveReport write_zarr(const model::Tree& tree, const std::string& destination,
                      const ZarrSaveOptions& options = {}, const SaveOptions& common = {});

/// write_zarr into the key-value store `store` (S3) under `name`, with no local copy: chunks
/// go up as they are encoded, then the metadata (arrays before the groups holding them, the
/// consolidated metadata last), so a reader finds no array before all its chunks. An old
/// store at `name` loses its metadata before the first chunk and, after the last, the chunks
/// the new one lacks. What would be lost is checked before anything is written (LossError,
/// the old store untouched); a write that fails later (a read error, the store refusing a
/// value) removes what it wrote. `url` names the store in messages and in the report.
SaveReport write_zarr_to_store(const model::Tree& tree, io::Store& store, const std::string& name,
                               const std::string& url, const ZarrSaveOptions& options = {},
                               const SaveOptions& common = {});

/// Writes regions of an array of an existing directory store in place: the chunks a
/// region covers whole are encoded from the new values alone; the chunks it covers in part
/// are read, merged and re-encoded (read-modify-write); every chunk is replaced atomically
/// (a reader sees the old chunk or the new one) and a chunk that becomes all fill value is
/// removed. v3 and v2 arrays, sharded ones included (a shard is rewritten whole).
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

  /// The element type write() takes: the array's, in native byte order.
  const DType& dtype() const;
  /// The array's shape.
  const std::vector<int64_t>& shape() const;

  /// Writes `data` over the elements `slab` selects: C-ordered, native byte order, slab.count
  /// elements per dimension (dimensions dropped by an integer index count 1). Steps must be 1
  /// (Error(kUsage) otherwise, and for a slab that does not fit the array). Returns the bytes
  /// of chunks written. A failure leaves every chunk either as it was or as written.
  uint64_t write(const Hyperslab& slab, const void* data);

 private:
  struct Array;  // the array's store and metadata (region_writer.cpp)
  std::unique_ptr<Array> array_;
};

/// Adds the "zarr" format: a directory store (extension .zarr) recognised by its metadata,
/// and any http(s):// URL.
void register_zarr_format(FormatRegistry& registry);

}  // namespace dudley::zarr
