// Zarr v3 node metadata (`zarr.json`): an array's shape, data type, regular chunk grid, chunk
// key encoding, fill value, codec pipeline (sharding nested to any depth), dimension names
// and attributes; a group's attributes. Parsed strictly as the core spec 3.1 says: unknown
// fields fail unless marked `"must_understand": false`, codecs keep their three stages in
// order, and every size is checked before use. Written back in the same form.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "dudley/codec/chain.hpp"
#include "dudley/core/dtype.hpp"
#include "fill_value.hpp"

namespace dudley::zarr {

/// The most dimensions an array may have (as a Dudley layout declares).
inline constexpr size_t kMaxRank = 64;

/// One codec of a pipeline as the metadata names it: `name` and its `configuration` object
/// (empty when absent).
struct CodecSpec {
  std::string name;
  nlohmann::ordered_json configuration = nlohmann::ordered_json::object();
};

struct Sharding;

/// The most bytes a chunk read whole may decode to (a reader holds it in memory): checked
/// for every chunk that is not read through a shard index.
inline constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 31;

/// A codec pipeline in its three stages (array -> array, one array -> bytes, bytes -> bytes).
struct Pipeline {
  std::vector<CodecSpec> array_to_array;  ///< transpose
  CodecSpec array_to_bytes;               ///< bytes, or sharding_indexed
  std::vector<CodecSpec> bytes_to_bytes;  ///< gzip, zstd, blosc, crc32c
  /// The `bytes` codec's endian (little when it has none: one-byte elements).
  ByteOrder endian = ByteOrder::kLittle;
  /// What numcodecs.zfpy (as the array -> bytes codec) is given: "f4", "f8", "i4" or "i8".
  std::string zfpy_element;
  /// sharding_indexed's configuration when that is the array -> bytes codec.
  std::shared_ptr<const Sharding> sharding;

  /// Each codec as {"name", "configuration"}, in order: what zarr.json holds.
  nlohmann::ordered_json to_json() const;
  /// The codec layer's chain of the array -> array and bytes -> bytes codecs. The `bytes`
  /// codec's endian is applied apart (swap_elements): complex elements swap each half, which
  /// the chain's byte order step cannot know.
  codec::CodecChain chain() const;
};

/// A shard's inner grid, the pipeline of each inner chunk, and its index's.
struct Sharding {
  std::vector<int64_t> chunk_shape;
  Pipeline codecs;
  Pipeline index_codecs;
  bool index_at_end = true;
};

/// How chunk grid indices become store keys.
struct ChunkKeyEncoding {
  bool v2 = false;       ///< "v2": indices joined; otherwise "default": "c" first
  char separator = '/';  ///< '/' or '.'
  /// The key of the chunk at `index` ("c/0/1", "0.1"; 0-d: "c" or "0").
  std::string key(const std::vector<int64_t>& index) const;
  /// The grid index a key of an array of `rank` dimensions names, as key() spells it (no
  /// sign, no leading zeros); nullopt for any other key (metadata, stray files).
  std::optional<std::vector<int64_t>> index_of(std::string_view key, size_t rank) const;
};

struct ArrayMetadata {
  /// 3, or 2 for a Zarr v2 array (.zarray), read into the same form: its compressor and
  /// filters as bytes -> bytes codecs, order "F" as a transpose, its dtype's byte order as
  /// the bytes codec's.
  int zarr_format = 3;
  std::vector<int64_t> shape;
  /// The element type, multi-byte scalars in the order the `bytes` codec stores them (the
  /// innermost pipeline's, for sharded arrays).
  DType dtype;
  std::vector<int64_t> chunk_shape;  ///< the regular grid's (shards, when sharded)
  ChunkKeyEncoding keys;
  FillValue fill;  ///< native byte order
  /// Zarr v2 `"fill_value": null`: the array has no fill value (an HDF5 dataset without a
  /// user-defined one, a netCDF variable without _FillValue), so xarray masks no value of
  /// it. `fill` is then zeros; a writer stores every chunk, all-zero ones too.
  bool fill_null = false;
  Pipeline codecs;
  /// dimension_names, when given: one per dimension, unset for null.
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
};

struct GroupMetadata {
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
};

/// One node's metadata: an array's or a group's.
struct NodeMetadata {
  std::optional<ArrayMetadata> array;  ///< unset for a group
  GroupMetadata group;
};

/// Parses a zarr.json read from `path`. Throws Error naming `path` (and line:column for
/// malformed JSON) for anything the spec does not allow or this build cannot read: a
/// zarr_format other than 3, an unknown field, data type, chunk grid, key encoding or codec
/// not marked must_understand: false, codecs out of order or not exactly one array -> bytes,
/// a chunk or inner chunk shape that is 0, of the wrong rank or (inner) not dividing its
/// shard, a fill value the type does not permit, an array of more than 2^62 elements.
NodeMetadata parse_metadata(std::string_view text, const std::string& path);

/// Parses a Zarr v2 node: `meta` is the text of its .zarray (`is_array`) or .zgroup, read
/// from `path`; `attributes` the text of its .zattrs (empty when there is none). Numeric,
/// bool and complex dtypes (numpy typestrs), object arrays of strings or bytes (their
/// vlen-utf8 or vlen-bytes filter), compressors zlib, gzip, bz2, lz4, zstd and blosc,
/// numcodecs' shuffle filter (read as "numcodecs.shuffle" before the compressor; other
/// filters are refused, Error(kType)), order C or F, dimension_separator "." or "/". xarray's
/// `_ARRAY_DIMENSIONS` attribute gives the dimension names. Throws Error naming the file as
/// parse_metadata.
NodeMetadata parse_metadata_v2(std::string_view meta, std::string_view attributes,
                               const std::string& path, bool is_array);

/// The .zarray text of an array (order C; "numcodecs.shuffle" as a shuffle filter, the
/// compressor as numcodecs names it).
std::string array_metadata_json_v2(const ArrayMetadata& array);
/// The .zattrs text of an array or group (dimension names as `_ARRAY_DIMENSIONS`); empty
/// when there is nothing to write.
std::string attributes_json_v2(const nlohmann::ordered_json& attributes,
                               const std::optional<std::vector<std::optional<std::string>>>& names);

/// `document` as Zarr v2 metadata text: indented, every character beyond ASCII written as a
/// \u escape (zarr-python 2 reads .zarray, .zattrs and .zmetadata as ASCII).
std::string ascii_json(const nlohmann::ordered_json& document);

/// The zarr.json text of an array (zarr_format 3, fields in the spec's order, no
/// must_understand and no short-hand names, as writers for v3.0 readers should).
std::string array_metadata_json(const ArrayMetadata& array);
/// The zarr.json text of a group.
std::string group_metadata_json(const GroupMetadata& group);

/// Checks numcodecs' BitRound settings (`config`: keepbits, and v2's id) for elements of
/// `element_size` bytes, floats or not: rounding is done when a chunk is written, so a
/// reader only checks it and reads the values as they are. Throws Error naming `where`.
void check_bitround(const nlohmann::ordered_json& config, bool floats, uint64_t element_size,
                    const std::string& where);

/// Whether `name` is one of numcodecs' filters that compute on elements (numcodecs.delta,
/// fixedscaleoffset, astype, quantize, packbits): array -> array codecs to zarr-python 3,
/// held in a Pipeline as its first bytes -> bytes codecs (they then work on the serialized
/// elements, their types given in the bytes codec's order).
bool is_element_filter(const std::string& name);

}  // namespace dudley::zarr
