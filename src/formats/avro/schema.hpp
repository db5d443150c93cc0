// Avro schemas, parsed by the Avro C library (which checks them against the Avro
// specification) and kept as a graph of nodes the datum reader and writer walk. Named types
// may refer to themselves (a linked list): such a schema is a cycle of nodes, and datums of
// it are read with a depth limit, not by trusting the data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dudley::avro {

enum class SchemaKind {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// One type of a schema; other types are referred to by their index in Schema::nodes.
struct SchemaNode {
  SchemaKind kind = SchemaKind::kNull;
  std::string name;                                    ///< named types: the full name
  std::vector<std::pair<std::string, size_t>> fields;  ///< record fields, in order
  std::vector<std::string> symbols;                    ///< enum symbols
  size_t items = 0;                                    ///< array items, map values
  std::vector<size_t> branches;                        ///< union branches, in order
  uint64_t size = 0;                                   ///< fixed: its bytes
  /// YEP-113's ndarray record (named `ndarray`, its four fields as the YEP has them).
  bool ndarray = false;
  /// Whether a datum of this type can hold an ndarray record (its own or nested): such
  /// values become model nodes, others attributes.
  bool holds_ndarray = false;
  /// The fewest bytes a datum of this type takes (a count of items that could not fit in
  /// what is left of a buffer is refused before any is read).
  uint64_t min_bytes = 0;
  /// The most bytes a datum of this type can take; nullopt when it has no bound (strings,
  /// bytes, arrays and maps, and what holds them or refers back to itself). A block of N
  /// records of a bounded type decodes to at most N times this.
  std::optional<uint64_t> max_bytes;
};

struct Schema {
  std::vector<SchemaNode> nodes;
  size_t root = 0;
  /// The schema's JSON text as given.
  std::string json;

  const SchemaNode& at(size_t index) const { return nodes.at(index); }
  const SchemaNode& top() const { return nodes.at(root); }
};

/// Parses the schema `json` (from `where`, for errors). Throws Error(kData) naming `where`
/// (with line and column for text that is not JSON) for what is not an Avro schema;
/// Error(kLimit) for types nested deeper than 64 or more than 100,000 types.
Schema parse_schema(std::string_view json, const std::string& where);

/// The schema of YEP-113's ndarray record alone.
const Schema& ndarray_schema();

/// The type's name as Avro spells it ("record ns.Name", "array", "int", ...), for messages.
std::string describe(const Schema& schema, size_t node);

}  // namespace dudley::avro
