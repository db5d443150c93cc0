// Writing model trees as Zarr v3 directory stores that zarrita and zarr-python open: groups
// become groups, lists groups whose members are named by index, arrays chunked and encoded
// on every core, with their attributes and dimension names. The store is built in a
// temporary sibling and moved into place whole (io::AtomicDirectory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::zarr {

/// Zarr's own save options.
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

/// Writes `tree` as the store `path`. Returns the bytes written (metadata and chunks).
/// Throws Error(kType) naming an array whose type Zarr v3 cannot hold (fixed strings,
/// structs, pointers), and LossError for items the store has no place for (attributes that
/// are typed arrays, masks, pointees) unless `common.lossy`; nothing is then left at
/// `path`. `report`, when given, receives in `notes` what the store keeps differently (list
/// structure, chunking) and in `lost` what a lossy save left out.
uint64_t write_zarr(const model::Tree& tree, const std::string& path,
                    const ZarrSaveOptions& options, const SaveOptions& common = {},
                    SaveReport* report = nullptr);

/// The inner chunk shape write_zarr chooses in shards of `shard` elements: near `target`
/// bytes as choose_chunk_shape, each extent then lowered to a divisor of the shard's.
std::vector<int64_t> choose_inner_chunk_shape(const std::vector<int64_t>& shard,
                                              uint64_t element_size, uint64_t target);

/// The chunk shape write_zarr chooses for an array of `shape` and `element_size`-byte
/// elements: the whole array when it is at most `target` bytes, else the slowest
/// dimensions halved (rounded up) until a chunk is; never an extent of 0.
std::vector<int64_t> choose_chunk_shape(const std::vector<int64_t>& shape, uint64_t element_size,
                                        uint64_t target);

}  // namespace dudley::zarr
