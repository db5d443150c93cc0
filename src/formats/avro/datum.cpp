#include "datum.hpp"
#include "dudley/model/value_array.hpp"

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/model/memory_source.hpp"
#include "ndarray_record.hpp"

namespace dudley::avro {
namespace {

using model::Node;
using model::NodeKind;
using model::Value;

// The items of one array or map block: checked against the bytes left (and, for items of
// no bytes, against kMaxEmptyItems) before any is read.
uint64_t block_count(BinaryReader& in, const SchemaNode& items, uint64_t& empty_items, bool map) {
  // A map item is its key (at least one byte) and its value.
  const uint64_t min = items.min_bytes + (map ? 1 : 0);
  const uint64_t count = in.read_block_count(min);
  if (min == 0) {
    empty_items += count;
    if (empty_items > kMaxEmptyItems) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("more than {} items of no bytes in one array", kMaxEmptyItems),
                  Location::binary(in.where(), in.offset()));
    }
  }
  return count;
}

size_t union_branch(BinaryReader& in, const SchemaNode& u) {
  const uint64_t at = in.offset();
  const int64_t index = in.read_long();
  if (index < 0 || static_cast<uint64_t>(index) >= u.branches.size()) {
    throw Error(ErrorCategory::kData,
                fmt::format("union index {} of a union of {} branches", index, u.branches.size()),
                Location::binary(in.where(), at));
  }
  return u.branches[static_cast<size_t>(index)];
}

void check_depth(const BinaryReader& in, int depth) {
  if (depth > kMaxDatumDepth) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("a datum nested more than {} deep", kMaxDatumDepth),
                Location::binary(in.where(), in.offset()));
  }
}

Value decode_value(BinaryReader& in, const Schema& schema, size_t type, int depth) {
  check_depth(in, depth);
  const SchemaNode& n = schema.at(type);
  switch (n.kind) {
    case SchemaKind::kNull:
      return Value();
    case SchemaKind::kBoolean:
      return Value(in.read_boolean());
    case SchemaKind::kInt:
      return Value(int64_t{in.read_int()});
    case SchemaKind::kLong:
      return Value(in.read_long());
    case SchemaKind::kFloat:
      return Value(static_cast<double>(in.read_float()));
    case SchemaKind::kDouble:
      return Value(in.read_double());
    case SchemaKind::kBytes:
    case SchemaKind::kFixed: {
      const auto b = n.kind == SchemaKind::kBytes ? in.read_bytes() : in.read_fixed(n.size);
      const auto* p = reinterpret_cast<const uint8_t*>(b.data());
      return Value(model::ValueBytes(p, p + b.size()));
    }
    case SchemaKind::kString:
      return Value(std::string(in.read_string()));
    case SchemaKind::kEnum: {
      const uint64_t at = in.offset();
      const int64_t index = in.read_long();
      if (index < 0 || static_cast<uint64_t>(index) >= n.symbols.size()) {
        throw Error(ErrorCategory::kData,
                    fmt::format("enum index {} of {} symbols", index, n.symbols.size()),
                    Location::binary(in.where(), at));
      }
      return Value(n.symbols[static_cast<size_t>(index)]);
    }
    case SchemaKind::kRecord: {
      model::ValueMap fields;
      for (const auto& [name, field] : n.fields) {
        fields.emplace_back(name, decode_value(in, schema, field, depth + 1));
      }
      return Value(std::move(fields));
    }
    case SchemaKind::kArray: {
      model::ValueList items;
      uint64_t empty = 0;
      for (uint64_t c = block_count(in, schema.at(n.items), empty, false); c != 0;
           c = block_count(in, schema.at(n.items), empty, false)) {
        for (uint64_t i = 0; i < c; ++i)
          items.push_back(decode_value(in, schema, n.items, depth + 1));
      }
      return Value(std::move(items));
    }
    case SchemaKind::kMap: {
      model::ValueMap entries;
      uint64_t empty = 0;
      for (uint64_t c = block_count(in, schema.at(n.items), empty, true); c != 0;
           c = block_count(in, schema.at(n.items), empty, true)) {
        for (uint64_t i = 0; i < c; ++i) {
          std::string key(in.read_string());
          entries.emplace_back(std::move(key), decode_value(in, schema, n.items, depth + 1));
        }
      }
      return Value(std::move(entries));
    }
    case SchemaKind::kUnion:
      return decode_value(in, schema, union_branch(in, n), depth + 1);
  }
  return Value();
}

// A record field or map entry: a member when it holds an ndarray, else an attribute.
void place(Node& group, std::string name, Decoded d) {
  if (auto* child = std::get_if<std::unique_ptr<Node>>(&d)) {
    (*child)->name = std::move(name);
    group.children.push_back(std::move(*child));
  } else {
    group.attributes.set(std::move(name), std::get<Value>(std::move(d)));
  }
}

std::unique_ptr<Node> as_node(Decoded d) {
  if (auto* node = std::get_if<std::unique_ptr<Node>>(&d)) return std::move(*node);
  auto group = std::make_unique<Node>();
  group->kind = NodeKind::kGroup;
  Value value = std::get<Value>(std::move(d));
  if (value.is<model::ValueMap>()) {
    // A record of no arrays: its fields are the group's attributes, as those of a record
    // that holds arrays besides (place), so that every format with attributes carries them
    // and the schema writes them back by name.
    for (const auto& [name, field] : value.as<model::ValueMap>()) {
      group->attributes.set(name, field);
    }
    return group;
  }
  group->attributes.set("value", std::move(value));
  return group;
}

Decoded decode(BinaryReader& in, const Schema& schema, size_t type, const DatumOptions& options,
               int depth) {
  check_depth(in, depth);
  const SchemaNode& n = schema.at(type);
  if (!n.holds_ndarray) return decode_value(in, schema, type, depth);
  if (n.ndarray) {
    DecodedNdarray d = decode_ndarray(in, options.keep_alive);
    auto node = std::make_unique<Node>();
    node->kind = NodeKind::kArray;
    node->dtype = d.stored;
    node->shape = d.array.shape().dims();
    node->storage.order = d.stored.byte_order();
    if (options.offsets_in_file) {
      node->storage.kind = model::Storage::Kind::kContiguous;
      node->storage.offset = d.data_offset;
      node->storage.size = d.array.byte_size();
    }
    node->data = model::memory_source(std::move(d.array));
    return node;
  }
  switch (n.kind) {
    case SchemaKind::kRecord: {
      auto group = std::make_unique<Node>();
      group->kind = NodeKind::kGroup;
      for (const auto& [name, field] : n.fields) {
        place(*group, name, decode(in, schema, field, options, depth + 1));
      }
      return group;
    }
    case SchemaKind::kArray: {
      auto list = std::make_unique<Node>();
      list->kind = NodeKind::kList;
      uint64_t empty = 0;
      for (uint64_t c = block_count(in, schema.at(n.items), empty, false); c != 0;
           c = block_count(in, schema.at(n.items), empty, false)) {
        for (uint64_t i = 0; i < c; ++i) {
          list->children.push_back(as_node(decode(in, schema, n.items, options, depth + 1)));
        }
      }
      return list;
    }
    case SchemaKind::kMap: {
      auto group = std::make_unique<Node>();
      group->kind = NodeKind::kGroup;
      uint64_t empty = 0;
      for (uint64_t c = block_count(in, schema.at(n.items), empty, true); c != 0;
           c = block_count(in, schema.at(n.items), empty, true)) {
        for (uint64_t i = 0; i < c; ++i) {
          std::string key(in.read_string());
          place(*group, std::move(key), decode(in, schema, n.items, options, depth + 1));
        }
      }
      return group;
    }
    case SchemaKind::kUnion:
      return decode(in, schema, union_branch(in, n), options, depth + 1);
    default:
      break;
  }
  return decode_value(in, schema, type, depth);
}

void skip(BinaryReader& in, const Schema& schema, size_t type, int depth) {
  check_depth(in, depth);
  const SchemaNode& n = schema.at(type);
  switch (n.kind) {
    case SchemaKind::kNull:
      return;
    case SchemaKind::kBoolean:
      in.read_boolean();
      return;
    case SchemaKind::kInt:
      in.read_int();
      return;
    case SchemaKind::kLong:
    case SchemaKind::kEnum:
      in.read_long();
      return;
    case SchemaKind::kFloat:
      in.read_fixed(4);
      return;
    case SchemaKind::kDouble:
      in.read_fixed(8);
      return;
    case SchemaKind::kBytes:
    case SchemaKind::kString:
      in.read_bytes();
      return;
    case SchemaKind::kFixed:
      in.read_fixed(n.size);
      return;
    case SchemaKind::kRecord:
      for (const auto& field : n.fields) skip(in, schema, field.second, depth + 1);
      return;
    case SchemaKind::kArray:
    case SchemaKind::kMap: {
      const bool map = n.kind == SchemaKind::kMap;
      uint64_t empty = 0;
      for (uint64_t c = block_count(in, schema.at(n.items), empty, map); c != 0;
           c = block_count(in, schema.at(n.items), empty, map)) {
        for (uint64_t i = 0; i < c; ++i) {
          if (map) in.read_bytes();
          skip(in, schema, n.items, depth + 1);
        }
      }
      return;
    }
    case SchemaKind::kUnion:
      skip(in, schema, union_branch(in, n), depth + 1);
      return;
  }
}

[[noreturn]] void mismatch(const std::string& path, const std::string& what, const Schema& schema,
                           size_t type) {
  throw Error(ErrorCategory::kType, fmt::format("{}: {} does not fit the schema's {}", path, what,
                                                describe(schema, type)));
}

std::string child_path(const std::string& path, const std::string& name) {
  return path == "/" ? "/" + name : path + "/" + name;
}

// Whether `value` can be written as `type` (for choosing a union's branch: the first that
// fits, as fastavro and avsc choose).
bool value_fits(const Value& v, const Schema& schema, size_t type, int depth) {
  if (depth > kMaxDatumDepth) return false;
  const SchemaNode& n = schema.at(type);
  switch (n.kind) {
    case SchemaKind::kNull:
      return v.is_null();
    case SchemaKind::kBoolean:
      return v.is<bool>();
    case SchemaKind::kInt:
      if (v.is<int64_t>()) return v.as<int64_t>() >= INT32_MIN && v.as<int64_t>() <= INT32_MAX;
      return v.is<uint64_t>() && v.as<uint64_t>() <= INT32_MAX;
    case SchemaKind::kLong:
      return v.is<int64_t>() || (v.is<uint64_t>() && v.as<uint64_t>() <= INT64_MAX);
    case SchemaKind::kFloat:
    case SchemaKind::kDouble:
      return v.is<double>() || v.is<int64_t>() || v.is<uint64_t>();
    case SchemaKind::kBytes:
      return v.is<model::ValueBytes>();
    case SchemaKind::kFixed:
      return v.is<model::ValueBytes>() && v.as<model::ValueBytes>().size() == n.size;
    case SchemaKind::kString:
      return v.is<std::string>();
    case SchemaKind::kEnum:
      return v.is<std::string>() &&
             std::find(n.symbols.begin(), n.symbols.end(), v.as<std::string>()) != n.symbols.end();
    case SchemaKind::kRecord: {
      if (!v.is<model::ValueMap>()) return false;
      for (const auto& [name, field] : n.fields) {
        const Value* f = v.find(name);
        if (!f || !value_fits(*f, schema, field, depth + 1)) return false;
      }
      return true;
    }
    case SchemaKind::kArray:
      if (!v.is<model::ValueList>()) return false;
      for (const Value& item : v.as<model::ValueList>()) {
        if (!value_fits(item, schema, n.items, depth + 1)) return false;
      }
      return true;
    case SchemaKind::kMap:
      if (!v.is<model::ValueMap>()) return false;
      for (const auto& item : v.as<model::ValueMap>()) {
        if (!value_fits(item.second, schema, n.items, depth + 1)) return false;
      }
      return true;
    case SchemaKind::kUnion:
      for (size_t b : n.branches) {
        if (value_fits(v, schema, b, depth + 1)) return true;
      }
      return false;
  }
  return false;
}

double number_of(const Value& v) {
  if (v.is<double>()) return v.as<double>();
  if (v.is<int64_t>()) return static_cast<double>(v.as<int64_t>());
  return static_cast<double>(v.as<uint64_t>());
}

void encode_value_at(const Value& v, const Schema& schema, size_t type, BinaryWriter& out,
                     const std::string& path, int depth) {
  if (depth > kMaxDatumDepth) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("{}: a value nested more than {} deep", path, kMaxDatumDepth));
  }
  const SchemaNode& n = schema.at(type);
  if (n.kind == SchemaKind::kUnion) {
    for (size_t i = 0; i < n.branches.size(); ++i) {
      if (value_fits(v, schema, n.branches[i], depth + 1)) {
        out.write_long(static_cast<int64_t>(i));
        encode_value_at(v, schema, n.branches[i], out, path, depth + 1);
        return;
      }
    }
    mismatch(path, "a value", schema, type);
  }
  if (!value_fits(v, schema, type, depth)) mismatch(path, "a value", schema, type);
  switch (n.kind) {
    case SchemaKind::kNull:
      return;
    case SchemaKind::kBoolean:
      out.write_boolean(v.as<bool>());
      return;
    case SchemaKind::kInt:
    case SchemaKind::kLong:
      out.write_long(v.is<int64_t>() ? v.as<int64_t>() : static_cast<int64_t>(v.as<uint64_t>()));
      return;
    case SchemaKind::kFloat:
      out.write_float(static_cast<float>(number_of(v)));
      return;
    case SchemaKind::kDouble:
      out.write_double(number_of(v));
      return;
    case SchemaKind::kBytes:
    case SchemaKind::kFixed: {
      const auto& b = v.as<model::ValueBytes>();
      const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(b.data()),
                                             b.size());
      if (n.kind == SchemaKind::kBytes)
        out.write_bytes(bytes);
      else
        out.write_raw(bytes);
      return;
    }
    case SchemaKind::kString:
      out.write_string(v.as<std::string>());
      return;
    case SchemaKind::kEnum: {
      const auto it = std::find(n.symbols.begin(), n.symbols.end(), v.as<std::string>());
      out.write_long(it - n.symbols.begin());
      return;
    }
    case SchemaKind::kRecord:
      for (const auto& [name, field] : n.fields) {
        encode_value_at(*v.find(name), schema, field, out, child_path(path, name), depth + 1);
      }
      return;
    case SchemaKind::kArray: {
      const auto& items = v.as<model::ValueList>();
      if (!items.empty()) {
        out.write_long(static_cast<int64_t>(items.size()));
        for (size_t i = 0; i < items.size(); ++i) {
          encode_value_at(items[i], schema, n.items, out, fmt::format("{}[{}]", path, i),
                          depth + 1);
        }
      }
      out.write_long(0);
      return;
    }
    case SchemaKind::kMap: {
      const auto& items = v.as<model::ValueMap>();
      if (!items.empty()) {
        out.write_long(static_cast<int64_t>(items.size()));
        for (const auto& [key, item] : items) {
          out.write_string(key);
          encode_value_at(item, schema, n.items, out, child_path(path, key), depth + 1);
        }
      }
      out.write_long(0);
      return;
    }
    case SchemaKind::kUnion:
      return;  // handled above
  }
}

// Arrays at most this long are candidates for a schema's plain values (a 0-d dataset as a
// long, a short vector as an array of doubles) when a union asks which branch fits.
constexpr uint64_t kMaxPlainElements = 4096;

// Whether `node` can be written as `type`, for a union's branch.
bool node_fits(const Node& node, const Schema& schema, size_t type) {
  const SchemaNode& n = schema.at(type);
  switch (node.kind) {
    case NodeKind::kArray: {
      if (n.ndarray) return true;
      if (!node.data || !node.error.empty()) return false;
      const uint64_t elements = Shape(node.shape).element_count().value_or(UINT64_MAX);
      if (elements > kMaxPlainElements) return false;
      // A schema's plain type (long, double, string, arrays of them) takes an array by its
      // values (array_as_value: 0-d and one-element arrays as scalars, others as lists).
      const std::optional<Value> v = model::array_as_value(node.data->read());
      return v && value_fits(*v, schema, type, 0);
    }
    case NodeKind::kList:
      return n.kind == SchemaKind::kArray && schema.at(n.items).holds_ndarray;
    case NodeKind::kGroup:
      if (n.kind == SchemaKind::kMap) return true;
      if (n.kind != SchemaKind::kRecord || n.ndarray) return false;
      for (const auto& [name, field] : n.fields) {
        if (!node.member(name) && !node.attributes.find(name)) return false;
      }
      return true;
  }
  return false;
}

// An attribute as a JSON-like value: a typed one (HDF5's, NDL's) by its values.
Value attribute_value(const model::AttributeValue& a, const std::string& at) {
  if (const auto* v = std::get_if<Value>(&a)) return *v;
  std::optional<Value> v = model::array_as_value(std::get<NDArray>(a));
  if (!v) {
    throw Error(ErrorCategory::kType,
                fmt::format("{}: a typed-array attribute of {} has no Avro value", at,
                            std::get<NDArray>(a).dtype().to_string()));
  }
  return std::move(*v);
}

void encode_node_at(const Node& node, const Schema& schema, size_t type, BinaryWriter& out,
                    const std::string& path, int depth) {
  if (depth > kMaxDatumDepth) {
    throw Error(ErrorCategory::kLimit,
                fmt::format("{}: nested more than {} deep", path, kMaxDatumDepth));
  }
  if (!node.error.empty()) {
    throw Error(node.error.category, fmt::format("{}: {}", path, node.error.message),
                node.error.location);
  }
  const SchemaNode& n = schema.at(type);
  if (n.kind == SchemaKind::kUnion) {
    for (size_t i = 0; i < n.branches.size(); ++i) {
      if (node_fits(node, schema, n.branches[i])) {
        out.write_long(static_cast<int64_t>(i));
        encode_node_at(node, schema, n.branches[i], out, path, depth + 1);
        return;
      }
    }
    mismatch(path, "a node", schema, type);
  }
  if (node.kind == NodeKind::kArray) {
    if (!node.data)
      throw Error(ErrorCategory::kData, fmt::format("{}: the array has no data", path));
    if (n.ndarray) {
      encode_ndarray(node.data->read(), out);
      return;
    }
    // A schema's plain type (long, double, string, an array of them): the array's values.
    const std::optional<Value> v = model::array_as_value(node.data->read());
    if (!v || !value_fits(*v, schema, type, depth)) mismatch(path, "an array", schema, type);
    encode_value_at(*v, schema, type, out, path, depth + 1);
    return;
  }
  if (node.kind == NodeKind::kList) {
    if (n.kind != SchemaKind::kArray) mismatch(path, "a list", schema, type);
    const uint64_t count = model::child_count(node);
    if (count > 0) out.write_long(static_cast<int64_t>(count));
    model::for_each_child(node, [&](uint64_t i, const Node& item) {
      encode_node_at(item, schema, n.items, out, fmt::format("{}[{}]", path, i), depth + 1);
      return true;
    });
    out.write_long(0);
    return;
  }
  // A group: a record (fields by name, members first, then attributes) or a map.
  if (n.kind == SchemaKind::kRecord && !n.ndarray) {
    for (const auto& [name, field] : n.fields) {
      const std::string at = child_path(path, name);
      if (const Node* child = node.member(name)) {
        encode_node_at(*child, schema, field, out, at, depth + 1);
      } else if (const model::AttributeValue* a = node.attributes.find(name)) {
        encode_value_at(attribute_value(*a, at), schema, field, out, at, depth + 1);
      } else {
        encode_value_at(Value(), schema, field, out, at, depth + 1);  // null, if it may be
      }
    }
    return;
  }
  if (n.kind == SchemaKind::kMap) {
    const uint64_t count = node.children.size() + node.attributes.size();
    if (count > 0) out.write_long(static_cast<int64_t>(count));
    for (const auto& child : node.children) {
      out.write_string(child->name);
      encode_node_at(*child, schema, n.items, out, child_path(path, child->name), depth + 1);
    }
    for (const auto& [name, a] : node.attributes) {
      const std::string at = child_path(path, name);
      const Value v = attribute_value(a, at);
      out.write_string(name);
      encode_value_at(v, schema, n.items, out, at, depth + 1);
    }
    out.write_long(0);
    return;
  }
  mismatch(path, "a group", schema, type);
}

}  // namespace

Decoded decode_datum(BinaryReader& in, const Schema& schema, size_t type,
                     const DatumOptions& options) {
  return decode(in, schema, type, options, 0);
}

std::unique_ptr<model::Node> decode_node(BinaryReader& in, const Schema& schema, size_t type,
                                         const DatumOptions& options) {
  return as_node(decode(in, schema, type, options, 0));
}

void skip_datum(BinaryReader& in, const Schema& schema, size_t type) {
  skip(in, schema, type, 0);
}

void encode_node(const model::Node& node, const Schema& schema, size_t type, BinaryWriter& out,
                 const std::string& path) {
  encode_node_at(node, schema, type, out, path, 0);
}

void encode_value(const model::Value& value, const Schema& schema, size_t type, BinaryWriter& out,
                  const std::string& path) {
  encode_value_at(value, schema, type, out, path, 0);
}

}  // namespace dudley::avro
