// Avro datums of any schema into the model and back. An ndarray record is an array; a
// record is a group whose fields that can hold ndarrays are members and whose other fields
// are attributes; an array of such values is a list, a map a group, a union its branch.
// A datum that holds no ndarray is a JSON-like model::Value (bytes and fixed as bytes, an
// enum as its symbol).
#pragma once

#include <memory>
#include <variant>

#include "binary.hpp"
#include "dudley/model/tree.hpp"
#include "dudley/model/value.hpp"
#include "schema.hpp"

namespace dudley::avro {

/// Datums nest at most this deep (a recursive schema's data could claim any depth).
inline constexpr int kMaxDatumDepth = 64;
/// Items of no bytes (nulls, empty records) one array or map may hold.
inline constexpr uint64_t kMaxEmptyItems = uint64_t{1} << 20;

/// How a datum is read.
struct DatumOptions {
  /// Owns the reader's buffer: ndarray data in native order is borrowed, not copied.
  std::shared_ptr<const void> keep_alive;
  /// The reader's offsets are file offsets of uncompressed bytes: arrays record where their
  /// data lies (Storage::kContiguous).
  bool offsets_in_file = false;
};

/// A decoded datum: a model node (it holds an ndarray) or a value (it does not).
using Decoded = std::variant<std::unique_ptr<model::Node>, model::Value>;

/// Decodes one datum of type `type` of `schema` at `in`'s position. Throws Error(kData) at
/// the byte where the datum is wrong (a union index out of range, a length past the end,
/// an enum index out of range, an ndarray record that is not one), Error(kLimit) beyond
/// kMaxDatumDepth or kMaxEmptyItems.
Decoded decode_datum(BinaryReader& in, const Schema& schema, size_t type,
                     const DatumOptions& options = {});

/// As decode_datum, always a node: a value becomes a group with the attribute "value".
std::unique_ptr<model::Node> decode_node(BinaryReader& in, const Schema& schema, size_t type,
                                         const DatumOptions& options = {});

/// Moves past one datum without building it (checked as decode_datum checks).
void skip_datum(BinaryReader& in, const Schema& schema, size_t type);

/// Encodes `node` as a datum of type `type` of `schema`: an array as an ndarray record; a
/// group as a record (members and attributes by field name), map or union branch; a list
/// as an array. Error(kType) naming the node's path when it does not fit the schema.
void encode_node(const model::Node& node, const Schema& schema, size_t type, BinaryWriter& out,
                 const std::string& path = "/");

/// Encodes `value` (JSON-like) as a datum of type `type`. Error(kType) naming `path`.
void encode_value(const model::Value& value, const Schema& schema, size_t type, BinaryWriter& out,
                  const std::string& path);

}  // namespace dudley::avro
