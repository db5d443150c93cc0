// Single raw datums, as yaq sends them: no container and no header, the schema known to
// both sides (the ndarray record's, or one that nests it).
#include <cstring>

#include <fmt/format.h>

#include "binary.hpp"
#include "container.hpp"
#include "datum.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/formats/avro.hpp"
#include "ndarray_record.hpp"
#include "schema.hpp"

namespace dudley::avro {
namespace {

// A datum's whole bytes are held: a file larger than this is refused rather than read.
constexpr uint64_t kMaxDatumBytes = uint64_t{4} << 30;

Schema schema_at(const std::string& schema_path) {
  if (schema_path.empty()) return ndarray_schema();
  return parse_schema(read_text_file(schema_path), schema_path);
}

}  // namespace

model::Tree read_avro_datum(const std::string& path, const std::string& schema_path) {
  const Schema schema = schema_at(schema_path);
  const auto source = io::open_file(path);
  if (source->size() > kMaxDatumBytes) {
    throw Error(
        ErrorCategory::kLimit,
        fmt::format("a datum of {} bytes; at most {} are read", source->size(), kMaxDatumBytes),
        Location::file(path));
  }
  auto bytes = std::make_shared<codec::Bytes>(source->size());
  source->read(0, bytes->size(), bytes->data(), "the datum");
  if (bytes->size() >= 4 && std::memcmp(bytes->data(), kMagic, 4) == 0) {
    throw Error(ErrorCategory::kUsage,
                "an Avro container file, not one raw datum: read it with dudley ls or dump",
                Location::file(path));
  }
  BinaryReader in(*bytes, path);
  DatumOptions datum;
  datum.keep_alive = bytes;
  datum.offsets_in_file = true;
  model::Tree tree;
  tree.format = "avro";
  tree.root = decode_node(in, schema, schema.root, datum);
  if (!in.at_end()) {
    throw Error(ErrorCategory::kData,
                fmt::format("{} bytes after the datum (a container file is read by ls and dump)",
                            in.remaining()),
                Location::binary(path, in.offset()));
  }
  return tree;
}

codec::Bytes encode_avro_datum(const model::Node& node, const std::string& schema_path,
                               const std::string& where) {
  const Schema schema = schema_at(schema_path);
  codec::Bytes datum;
  BinaryWriter w(datum);
  encode_node(node, schema, schema.root, w, where);
  return datum;
}

}  // namespace dudley::avro
