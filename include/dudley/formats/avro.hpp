// Avro: Object Container Files of records, read as model trees (the root a list of the
// file's records, built on demand so memory follows one block; a YEP-113 ndarray record is
// an array) and written from them, streamed a block at a time; and single raw datums, as
// yaq sends them (no container: the schema is known to both sides).
//
// The public face of the format, shaped as every format's is (docs/development.md):
// AvroOpenOptions, AvroSaveOptions, open_avro, write_avro and register_avro_format, plus
// the raw datum functions only Avro has.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dudley/codec/codec.hpp"
#include "dudley/format.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::avro {

/// The most bytes a compressed block may decode to unless the reader is told otherwise
/// (--max-block-size): Avro's writers flush a block every 16 to 64 KB of records by
/// default, and a block of ndarray records holds at least one whole array.
inline constexpr uint64_t kDefaultMaxBlockBytes = uint64_t{256} << 20;

/// How Avro containers are read.
struct AvroOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "avro";
  /// The most bytes a compressed block may decode to (--max-block-size).
  uint64_t max_block_bytes = kDefaultMaxBlockBytes;
};

/// How Avro containers are written.
struct AvroSaveOptions : FormatOptions {
  static constexpr const char* kFormat = "avro";
  /// The container codec: "null" (default), "deflate", "bzip2" or "zstandard".
  std::string codec = "null";
  /// A schema file for the records; empty: the source's own writer schema (an Avro
  /// source's "avro.schema" attribute), else one ndarray record per array.
  std::string schema_path;
  /// Bytes of records gathered into a block before it is compressed and written.
  uint64_t block_bytes = uint64_t{1} << 20;
};

/// The root attribute holding the writer's schema (JSON text), and the one naming the codec.
inline constexpr const char* kSchemaAttribute = model::well_known::kWriterSchema;
inline constexpr const char* kCodecAttribute = "avro.codec";

/// Opens the container file `path`: the root is a list of its records, each as its schema
/// maps it; the root's attributes are the writer's schema (kSchemaAttribute), the codec and
/// the header's other metadata. Throws Error(kData) naming the byte offset of a bad magic,
/// header or block, Error(kLimit) for a block decoding to more than
/// `options.max_block_bytes`. `common` is accepted for the same shape as every format's open.
model::Tree open_avro(const std::string& path, const AvroOpenOptions& options = {},
                      const OpenOptions& common = {});

/// The same for bytes already open (a memory buffer in tests and fuzzing); `source`'s name
/// is used in errors.
model::Tree open_avro(std::shared_ptr<io::ByteSource> source, const AvroOpenOptions& options = {},
                      const OpenOptions& common = {});

/// Writes `tree` as the container file `destination`. With a schema (given, or the
/// source's): a list root is one record per item, another root one record; without: every
/// array of the tree, depth first, is one ndarray record, and the report's notes say that
/// the names are not kept. Throws Error(kType) naming the node that does not fit the schema
/// or has no ndarray typestr, Error(kLimit) for an array larger than memory (a record is
/// held whole), and LossError for what ndarray records have no place for (attributes,
/// pointees) unless `common.lossy`; nothing is then left at `destination`.
SaveReport write_avro(const model::Tree& tree, const std::string& destination,
                      const AvroSaveOptions& options = {}, const SaveOptions& common = {});

/// The raw datum in the file `path` (at most 4 GiB, held whole) as a tree whose root is the
/// datum, decoded with the schema in the JSON file `schema_path` (empty: the ndarray
/// record's). Throws Error(kUsage) for a container file, Error(kData) naming the byte
/// offset for a datum that does not decode or for bytes after it.
model::Tree read_avro_datum(const std::string& path, const std::string& schema_path = {});

/// `node` encoded as one raw datum of the schema in the JSON file `schema_path` (empty: the
/// ndarray record's, `node` an array). `where` names the node in errors: Error(kType) for a
/// node that does not fit the schema.
codec::Bytes encode_avro_datum(const model::Node& node, const std::string& schema_path,
                               const std::string& where);

/// Adds the "avro" format: Object Container Files (extension .avro, magic "Obj\x01").
void register_avro_format(FormatRegistry& registry);

}  // namespace dudley::avro
