#include "schema.hpp"

#include <avro.h>
#include <fmt/format.h>

#include <optional>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "dudley/core/error.hpp"
#include "ndarray_record.hpp"

namespace dudley::avro {
namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxNodes = 100000;

struct SchemaFree {
  void operator()(avro_schema_t s) const { avro_schema_decref(s); }
};
using SchemaHandle = std::unique_ptr<struct avro_obj_t, SchemaFree>;

// Turns the Avro C schema into nodes: each named type once (links point back to it).
class Builder {
 public:
  Builder(Schema& out, const std::string& where) : out_(out), where_(where) {}

  size_t add(avro_schema_t s, int depth) {
    if (depth > kMaxDepth) fail(fmt::format("types nested more than {} deep", kMaxDepth), true);
    if (is_avro_link(s)) s = avro_schema_link_target(s);
    if (is_avro_named_type(s)) {
      auto it = named_.find(s);
      if (it != named_.end()) return it->second;
    }
    if (out_.nodes.size() >= kMaxNodes) fail(fmt::format("more than {} types", kMaxNodes), true);
    const size_t index = out_.nodes.size();
    out_.nodes.emplace_back();
    if (is_avro_named_type(s)) {
      named_[s] = index;
      const char* space = avro_schema_namespace(s);
      const std::string name = avro_schema_name(s);
      out_.nodes[index].name = space && *space ? std::string(space) + "." + name : name;
    }
    SchemaNode node;
    node.name = out_.nodes[index].name;
    switch (avro_typeof(s)) {
      case AVRO_NULL:
        node.kind = SchemaKind::kNull;
        break;
      case AVRO_BOOLEAN:
        node.kind = SchemaKind::kBoolean;
        break;
      case AVRO_INT32:
        node.kind = SchemaKind::kInt;
        break;
      case AVRO_INT64:
        node.kind = SchemaKind::kLong;
        break;
      case AVRO_FLOAT:
        node.kind = SchemaKind::kFloat;
        break;
      case AVRO_DOUBLE:
        node.kind = SchemaKind::kDouble;
        break;
      case AVRO_BYTES:
        node.kind = SchemaKind::kBytes;
        break;
      case AVRO_STRING:
        node.kind = SchemaKind::kString;
        break;
      case AVRO_RECORD:
        node.kind = SchemaKind::kRecord;
        for (size_t i = 0; i < avro_schema_record_size(s); ++i) {
          const int k = static_cast<int>(i);
          node.fields.emplace_back(avro_schema_record_field_name(s, k),
                                   add(avro_schema_record_field_get_by_index(s, k), depth + 1));
        }
        break;
      case AVRO_ENUM:
        node.kind = SchemaKind::kEnum;
        for (int i = 0; i < avro_schema_enum_number_of_symbols(s); ++i) {
          node.symbols.emplace_back(avro_schema_enum_get(s, i));
        }
        break;
      case AVRO_FIXED:
        node.kind = SchemaKind::kFixed;
        node.size = static_cast<uint64_t>(avro_schema_fixed_size(s));
        break;
      case AVRO_ARRAY:
        node.kind = SchemaKind::kArray;
        node.items = add(avro_schema_array_items(s), depth + 1);
        break;
      case AVRO_MAP:
        node.kind = SchemaKind::kMap;
        node.items = add(avro_schema_map_values(s), depth + 1);
        break;
      case AVRO_UNION:
        node.kind = SchemaKind::kUnion;
        for (size_t i = 0; i < avro_schema_union_size(s); ++i) {
          node.branches.push_back(add(avro_schema_union_branch(s, static_cast<int>(i)), depth + 1));
        }
        break;
      default:
        fail(fmt::format("a type Avro C calls {}", avro_schema_type_name(s)), false);
    }
    out_.nodes[index] = std::move(node);
    return index;
  }

  [[noreturn]] void fail(const std::string& what, bool limit) const {
    throw Error(limit ? ErrorCategory::kLimit : ErrorCategory::kData,
                fmt::format("schema: {}", what), Location::file(where_));
  }

 private:
  Schema& out_;
  const std::string& where_;
  std::map<avro_schema_t, size_t> named_;
};

bool is_ndarray(const Schema& s, const SchemaNode& n) {
  if (n.kind != SchemaKind::kRecord || n.fields.size() != 4) return false;
  const std::string simple = n.name.substr(n.name.rfind('.') + 1);
  if (simple != "ndarray") return false;
  auto field_is = [&](size_t i, const char* name, SchemaKind kind) {
    return n.fields[i].first == name && s.nodes[n.fields[i].second].kind == kind;
  };
  return field_is(0, "shape", SchemaKind::kArray) &&
         s.nodes[n.fields[0].second].kind == SchemaKind::kArray &&
         s.nodes[s.nodes[n.fields[0].second].items].kind == SchemaKind::kInt &&
         field_is(1, "typestr", SchemaKind::kString) && field_is(2, "data", SchemaKind::kBytes) &&
         field_is(3, "version", SchemaKind::kInt);
}

// Which nodes are ndarray records, and which can hold one: the least fixed point over the
// graph (cycles through records are allowed).
void derive_ndarrays(Schema& s) {
  for (SchemaNode& n : s.nodes) n.ndarray = is_ndarray(s, n);
  for (bool changed = true; changed;) {
    changed = false;
    for (SchemaNode& n : s.nodes) {
      if (n.holds_ndarray) continue;
      bool holds = n.ndarray;
      for (const auto& f : n.fields) holds = holds || s.nodes[f.second].holds_ndarray;
      for (size_t b : n.branches) holds = holds || s.nodes[b].holds_ndarray;
      if (n.kind == SchemaKind::kArray || n.kind == SchemaKind::kMap) {
        holds = holds || s.nodes[n.items].holds_ndarray;
      }
      if (holds) n.holds_ndarray = changed = true;
    }
  }
}

// A record whose fields lead back to it through records alone never ends: refused.
void refuse_endless_records(const Schema& s, const std::string& where) {
  std::vector<int> state(s.nodes.size(), 0);  // 0 unseen, 1 on the path, 2 done
  for (size_t start = 0; start < s.nodes.size(); ++start) {
    if (state[start] != 0 || s.nodes[start].kind != SchemaKind::kRecord) continue;
    std::vector<std::pair<size_t, size_t>> stack{{start, 0}};  // node, next field
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, field] = stack.back();
      const auto& fields = s.nodes[node].fields;
      if (field == fields.size()) {
        state[node] = 2;
        stack.pop_back();
        continue;
      }
      const size_t next = fields[field++].second;
      if (s.nodes[next].kind != SchemaKind::kRecord || state[next] == 2) continue;
      if (state[next] == 1) {
        throw Error(ErrorCategory::kData,
                    fmt::format("schema: record {} contains itself with no union or array "
                                "between (no datum of it ends)",
                                s.nodes[next].name),
                    Location::file(where));
      }
      state[next] = 1;
      stack.emplace_back(next, 0);
    }
  }
}

// Fewest bytes: arrays, maps, unions and variable-length values take at least one byte
// whatever they hold; a record the sum of its fields, found by iterating to a fixed point
// (which settles within as many rounds as records nest, none containing itself).
void derive_min_bytes(Schema& s) {
  for (SchemaNode& n : s.nodes) {
    switch (n.kind) {
      case SchemaKind::kNull:
        n.min_bytes = 0;
        break;
      case SchemaKind::kFloat:
        n.min_bytes = 4;
        break;
      case SchemaKind::kDouble:
        n.min_bytes = 8;
        break;
      case SchemaKind::kFixed:
        n.min_bytes = n.size;
        break;
      case SchemaKind::kRecord:
        n.min_bytes = 0;
        break;
      default:
        n.min_bytes = 1;
        break;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (SchemaNode& n : s.nodes) {
      if (n.kind != SchemaKind::kRecord) continue;
      uint64_t sum = 0;
      for (const auto& f : n.fields)
        sum = std::min<uint64_t>(sum + s.nodes[f.second].min_bytes, uint64_t{1} << 40);
      if (sum != n.min_bytes) {
        n.min_bytes = sum;
        changed = true;
      }
    }
  }
}

// Most bytes: fixed-size and integer types (zig-zag varints take at most 5 and 10 bytes)
// have one; a record or union has one once all its parts do. Types that refer back to
// themselves never get one: a fixed point from "unknown" leaves them unbounded.
void derive_max_bytes(Schema& s) {
  constexpr uint64_t kCap = uint64_t{1} << 40;
  for (SchemaNode& n : s.nodes) {
    switch (n.kind) {
      case SchemaKind::kNull:
        n.max_bytes = 0;
        break;
      case SchemaKind::kBoolean:
        n.max_bytes = 1;
        break;
      case SchemaKind::kInt:
      case SchemaKind::kEnum:
        n.max_bytes = 5;
        break;
      case SchemaKind::kLong:
        n.max_bytes = 10;
        break;
      case SchemaKind::kFloat:
        n.max_bytes = 4;
        break;
      case SchemaKind::kDouble:
        n.max_bytes = 8;
        break;
      case SchemaKind::kFixed:
        n.max_bytes = n.size;
        break;
      default:
        n.max_bytes.reset();
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (SchemaNode& n : s.nodes) {
      if (n.max_bytes || (n.kind != SchemaKind::kRecord && n.kind != SchemaKind::kUnion)) continue;
      std::optional<uint64_t> total = n.kind == SchemaKind::kUnion ? 10 : 0;  // the branch index
      uint64_t widest = 0;
      for (const auto& f : n.fields) {
        const auto& part = s.nodes[f.second].max_bytes;
        if (!part) total.reset();
        if (total) total = std::min(*total + *part, kCap);
      }
      for (size_t b : n.branches) {
        const auto& part = s.nodes[b].max_bytes;
        if (!part) total.reset();
        if (part) widest = std::max(widest, *part);
      }
      if (!total) continue;
      n.max_bytes = std::min(*total + widest, kCap);
      changed = true;
    }
  }
}

// What reading a datum of the schema needs to know of each node: whether it holds an
// ndarray record, and the fewest and most bytes a datum of it takes. Throws Error naming
// `where` for a record that must contain itself.
void derive(Schema& s, const std::string& where) {
  derive_ndarrays(s);
  refuse_endless_records(s, where);
  derive_min_bytes(s);
  derive_max_bytes(s);
}

// `schema` with each record of type "error" (the spec's records of protocols, which files
// may hold and readers accept) spelled "record", which the Avro C library reads the same
// way. Walked with an explicit stack: schemas may nest deeply.
std::optional<std::string> errors_as_records(nlohmann::json schema) {
  bool changed = false;
  std::vector<nlohmann::json*> todo{&schema};
  while (!todo.empty()) {
    nlohmann::json* node = todo.back();
    todo.pop_back();
    if (node->is_object()) {
      auto type = node->find("type");
      if (type != node->end() && *type == "error" && node->contains("fields")) {
        *type = "record";
        changed = true;
      }
      for (auto& [key, value] : node->items()) todo.push_back(&value);
    } else if (node->is_array()) {
      for (auto& value : *node) todo.push_back(&value);
    }
  }
  if (!changed) return std::nullopt;
  return schema.dump();
}

}  // namespace

Schema parse_schema(std::string_view given, const std::string& where) {
  // JSON first, so that text that is not JSON is named by line and column.
  std::optional<std::string> respelled;
  try {
    respelled = errors_as_records(nlohmann::json::parse(given));
  } catch (const nlohmann::json::parse_error& e) {
    uint32_t line = 1, column = 1;
    for (size_t i = 0; i < e.byte - 1 && i < given.size(); ++i) {
      if (given[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw Error(ErrorCategory::kData, "schema: not JSON", Location::text(where, line, column));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond what a double holds (`1e999`): JSON, but no schema can use it.
    throw Error(
        ErrorCategory::kData,
        fmt::format("schema: {}", e.id == 406 ? "a number too large for a double" : e.what()),
        Location::file(where));
  }
  const std::string_view json = respelled ? std::string_view(*respelled) : given;
  avro_schema_t raw = nullptr;
  if (avro_schema_from_json_length(json.data(), json.size(), &raw) != 0 || raw == nullptr) {
    std::string why = avro_strerror();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw Error(ErrorCategory::kData, fmt::format("not an Avro schema: {}", why),
                Location::file(where));
  }
  const SchemaHandle handle(raw);
  Schema schema;
  schema.json = std::string(given);
  Builder builder(schema, where);
  schema.root = builder.add(raw, 0);
  derive(schema, where);
  return schema;
}

const Schema& ndarray_schema() {
  static const Schema schema = parse_schema(ndarray_schema_json(), "the ndarray record schema");
  return schema;
}

std::string describe(const Schema& schema, size_t index) {
  const SchemaNode& n = schema.at(index);
  static const char* const kNames[] = {"null",   "boolean", "int",    "long",   "float",
                                       "double", "bytes",   "string", "record", "enum",
                                       "array",  "map",     "union",  "fixed"};
  const char* kind = kNames[static_cast<int>(n.kind)];
  return n.name.empty() ? kind : fmt::format("{} {}", kind, n.name);
}

}  // namespace dudley::avro
