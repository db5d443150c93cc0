// Model trees as Avro container files of records, streamed: each record is encoded into
// the current block as it is visited (memory follows one block and one record).
#pragma once

#include <string>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::avro {

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

/// Writes `tree` as the container file `path` and returns its size. With a schema (given,
/// or the source's): a list root is one record per item, another root one record; without:
/// every array of the tree, depth first, is one ndarray record, and the report's notes
/// say that the names are not kept. Throws Error(kType) naming the node that does not fit
/// the schema or has no ndarray typestr, Error(kLimit) for an array larger than memory (a
/// record is held whole), and LossError for what ndarray records have no place for
/// (attributes, pointees) unless `common.lossy`; nothing is then left at `path`. `report`,
/// when given, receives the notes and, in `lost`, what a lossy save left out.
uint64_t write_avro(const model::Tree& tree, const std::string& path,
                    const AvroSaveOptions& options, const SaveOptions& common = {},
                    SaveReport* report = nullptr);

}  // namespace dudley::avro
