#include "cli/tree_json.hpp"

#include "cli/model_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/float16.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/text.hpp"
#include "dudley/core/time_text.hpp"
#include "dudley/core/vlen.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

std::string json_text(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

json dtype_json(const DType& t) {
  if (t.kind() != DTypeKind::kCompound) return t.to_string();
  json fields = json::array();
  for (const auto& f : t.fields()) {
    fields.push_back({{"name", f.name},
                      {"dtype", dtype_json(*f.type)},
                      {"offset", f.offset},
                      {"shape", f.shape}});
  }
  return {{"struct", t.name()}, {"size", t.size()}, {"fields", fields}};
}

namespace {

json float_json(double v, bool single) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // The shortest text of the value in its own precision, read back as a double, prints the
  // same short text (0.1f shows as 0.1, not 0.10000000149011612).
  if (single) return std::stod(fmt::format("{}", static_cast<float>(v)));
  return v;
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

json scalar_json(const DType& t, const unsigned char* p);

// Elements of `shape` starting at p (C order), nested; text's last dimension is a string.
json block_json(const DType& t, const std::vector<int64_t>& shape, size_t dim,
                const unsigned char*& p) {
  const bool text_row = t.joins_units() && dim + 1 == shape.size();
  if (text_row) {
    const auto n = static_cast<size_t>(shape[dim]);
    std::string s;
    switch (t.encoding()) {
      case TextEncoding::kAscii:
        s = decode_s1({reinterpret_cast<const char*>(p), n});
        break;
      case TextEncoding::kUtf8:
        s = decode_utf8({reinterpret_cast<const char*>(p), n});
        break;
      case TextEncoding::kUtf16: {
        std::vector<uint16_t> u(n);
        if (n > 0) std::memcpy(u.data(), p, 2 * n);  // an empty array may have no buffer
        s = decode_utf16(u.data(), n);
        break;
      }
      case TextEncoding::kUtf32: {
        std::vector<uint32_t> u(n);
        if (n > 0) std::memcpy(u.data(), p, 4 * n);
        s = decode_utf32(u.data(), n);
        break;
      }
    }
    p += n * t.size();
    return s;
  }
  if (dim == shape.size()) {
    json v = scalar_json(t, p);
    p += t.size();
    return v;
  }
  json out = json::array();
  for (int64_t i = 0; i < shape[dim]; ++i) out.push_back(block_json(t, shape, dim + 1, p));
  return out;
}

json scalar_json(const DType& t, const unsigned char* p) {
  const uint64_t n = t.size();
  switch (t.kind()) {
    case DTypeKind::kBool:
      return *p != 0;
    case DTypeKind::kInt:
      return n == 1   ? json(load<int8_t>(p))
             : n == 2 ? json(load<int16_t>(p))
             : n == 4 ? json(load<int32_t>(p))
                      : json(load<int64_t>(p));
    case DTypeKind::kUInt:
    case DTypeKind::kPointer:
      return n == 1   ? json(load<uint8_t>(p))
             : n == 2 ? json(load<uint16_t>(p))
             : n == 4 ? json(load<uint32_t>(p))
                      : json(load<uint64_t>(p));
    case DTypeKind::kFloat:
      if (n == 2) {  // the shortest text that reads back as the same half
        const uint16_t bits = load<uint16_t>(p);
        const float v = half_to_float(bits);
        return std::isfinite(v) ? json(std::stod(half_shortest_text(bits))) : float_json(v, true);
      }
      if (n == 4) return float_json(load<float>(p), true);
      return float_json(load<double>(p), false);
    case DTypeKind::kComplex: {
      DType part = DType::float_(static_cast<unsigned>(n / 2));
      return json::array({scalar_json(part, p), scalar_json(part, p + n / 2)});
    }
    case DTypeKind::kText: {
      const unsigned char* q = p;
      if (t.is_string()) {  // one NUL-padded string, shown without its padding
        const DType unit = DType::text(t.encoding(), 1, t.byte_order());
        std::string s =
            block_json(unit, {static_cast<int64_t>(t.text_length())}, 0, q).get<std::string>();
        while (!s.empty() && s.back() == '\0') s.pop_back();
        return s;
      }
      // a lone code unit (no dimension to make a string of)
      return block_json(t, {1}, 0, q);
    }
    case DTypeKind::kVLen: {  // a string (UTF-8 text), or its elements as a list
      VLenElement e;
      std::memcpy(&e, p, sizeof e);
      const DType& base = t.base();
      if (base.joins_units() &&
          (base.encoding() == TextEncoding::kUtf8 || base.encoding() == TextEncoding::kAscii)) {
        return std::string(e.bytes(1));
      }
      json items = json::array();
      for (uint64_t i = 0; i < e.count; ++i) {
        items.push_back(
            scalar_json(base, reinterpret_cast<const unsigned char*>(e.data) + i * base.size()));
      }
      return items;
    }
    case DTypeKind::kEnum:  // its integer value, as h5py reads it (the names are in ls)
      return scalar_json(t.base(), p);
    case DTypeKind::kTime: {  // a date as numpy writes it; a duration as its count; NaT
      const auto count = load<int64_t>(p);
      if (count == kNotATime) return "NaT";
      if (t.is_duration() || t.time_unit().empty()) return count;
      return datetime_text(count, t);
    }
    case DTypeKind::kCompound: {
      json obj = json::object();
      for (const auto& f : t.fields()) {
        const unsigned char* q = p + f.offset;
        obj[f.name] = block_json(*f.type, f.shape, 0, q);
      }
      return obj;
    }
    case DTypeKind::kFixedArray: {  // nested lists of its base, as numpy expands a subarray
      const unsigned char* q = p;
      return block_json(t.base(), t.array_shape(), 0, q);
    }
    case DTypeKind::kOpaque:
    case DTypeKind::kRawBits:
    case DTypeKind::kReference:
    default: {  // bytes that have no other reading, which never hold a pointer of ours
      json bytes = json::array();
      for (uint64_t i = 0; i < n; ++i) bytes.push_back(p[i]);
      return bytes;
    }
  }
}

}  // namespace

json element_json(const DType& type, const unsigned char* p) {
  return scalar_json(type, p);
}

uint64_t printed_values(const DType& type, const std::vector<int64_t>& shape) {
  const bool text = type.joins_units() && !shape.empty();
  uint64_t values = 1, level = 1;
  for (size_t i = 0; i + (text ? 1 : 0) < shape.size(); ++i) {
    if (shape[i] <= 0) break;  // an empty list here, nothing below it
    level = checked_mul(level, static_cast<uint64_t>(shape[i])).value_or(UINT64_MAX);
    values = checked_add(values, level).value_or(UINT64_MAX);
  }
  return values;
}

void check_printable(const DType& type, const std::vector<int64_t>& shape,
                     const std::string& what) {
  const uint64_t values = printed_values(type, shape);
  if (values <= kMaxUnbackedValues) return;
  uint64_t bytes = type.size();
  for (int64_t d : shape) bytes = checked_mul(bytes, static_cast<uint64_t>(d)).value_or(UINT64_MAX);
  // An array holding bytes prints at most 65 values per byte (64 dimensions of lists above
  // each element); only arrays of no bytes print values nothing backs.
  if (bytes > 0) return;
  throw Error(
      ErrorCategory::kLimit,
      fmt::format("{}: shape {} prints {} values from {} bytes; not printed (select a "
                  "part of it)",
                  what.empty() ? "the array" : what, Shape(shape).to_string(),
                  values == UINT64_MAX ? std::string("more than 2^64") : std::to_string(values),
                  bytes));
}

json values_json(const NDArray& array) {
  check_printable(array.dtype(), array.shape().dims(), {});
  NDArray native =
      array.is_c_contiguous() && !array.dtype().needs_swap() ? array : array.to_native();
  const auto* p = static_cast<const unsigned char*>(native.data());
  return block_json(native.dtype(), native.shape().dims(), 0, p);
}

std::string child_path(const model::Node& parent, const std::string& parent_path,
                       const model::Node& child, uint64_t index) {
  const std::string base = parent_path == "/" ? "" : parent_path;
  return parent.kind == model::NodeKind::kList ? fmt::format("{}/{}", base, index)
                                               : base + "/" + child.name;
}

json parameter_json(const model::Parameter& p) {
  json entry = json::object();
  if (p.value) entry["value"] = *p.value;
  if (p.dtype) entry["dtype"] = dtype_json(*p.dtype);
  if (p.address) entry["address"] = *p.address;
  if (!p.doc.empty()) entry["doc"] = p.doc;
  if (!p.attributes.empty()) entry["attributes"] = attributes_json(p.attributes);
  if (!p.error.empty()) entry["error"] = p.error.text();
  return entry;
}

json params_json(const model::Node& group) {
  json params = json::object();
  for (const auto& p : group.params) {
    json entry = parameter_json(p);
    // A parameter may be declared again (a new value for the items after it): the entry
    // shows the last declaration, and "declarations" all of them in order, as the text
    // listing has one line for each.
    if (params.contains(p.name)) {
      json& seen = params[p.name];
      json all =
          seen.contains("declarations") ? std::move(seen["declarations"]) : json::array({seen});
      all.push_back(entry);
      entry["declarations"] = std::move(all);
    }
    params[p.name] = std::move(entry);
  }
  return params;
}

json node_json(const model::Node& node, const ArrayDecorator& decorate, const std::string& path) {
  TreeWalk walk;
  walk.decorate = decorate;
  return node_json(node, walk, path);
}

json link_json(const model::Link& link) {
  json out{{"kind", link.kind}, {"target", link.target}};
  if (!link.file.empty()) out["file"] = link.file;
  out["end"] = link.end_name();
  if (!link.listed_at.empty()) out["listed_at"] = link.listed_at;
  return out;
}

std::string unreadable_attribute_text(const std::string& path, const std::string& name,
                                      const model::NodeError& error) {
  return Error(error.category, model::attribute_problem(path, name, error), error.location).what();
}

json attribute_errors_json(const model::Node& node, const TreeWalk& walk, const std::string& path) {
  json errors = json::object();
  for (const auto& [name, error] : node.unreadable_attributes) {
    std::string text = unreadable_attribute_text(path, name, error);
    if (walk.unreadable_attribute) walk.unreadable_attribute(text);
    errors[name] = std::move(text);
  }
  return errors;
}

namespace {

void attribute_errors_json(const model::Node& node, const TreeWalk& walk, const std::string& path,
                           json& out) {
  if (!node.unreadable_attributes.empty())
    out["attribute_errors"] = attribute_errors_json(node, walk, path);
}

}  // namespace

json node_json(const model::Node& node, const TreeWalk& walk, const std::string& path) {
  const ArrayDecorator& decorate = walk.decorate;
  json out;
  switch (node.kind) {
    case model::NodeKind::kGroup: {
      out["kind"] = "group";
      if (node.link) out["link"] = link_json(*node.link);  // a group read through a link
      // Appended to the ordered object's storage directly: operator[] would search the
      // members so far for each one (quadratic for a group of 10^6 members); names in one
      // group are unique.
      json members = json::object();
      auto& storage = members.get_ref<json::object_t&>();
      for_each_child(node, [&](uint64_t i, const model::Node& c) {
        if (walk.stop && walk.stop()) return false;
        storage.json::object_t::Container::emplace_back(
            c.name, node_json(c, walk, child_path(node, path, c, i)));
        return true;
      });
      out["members"] = std::move(members);
      json params = params_json(node);
      if (!params.empty()) out["params"] = params;
      if (!node.attributes.empty()) out["attributes"] = attributes_json(node.attributes);
      attribute_errors_json(node, walk, path, out);
      break;
    }
    case model::NodeKind::kList: {
      out["kind"] = "list";
      json items = json::array();
      uint64_t limit = walk.max_items == 0 ? UINT64_MAX : walk.max_items;
      if (walk.reach) limit = std::max(limit, walk.reach(path));
      uint64_t shown = 0;
      for_each_child(node, [&](uint64_t i, const model::Node& c) {
        if (i >= limit || (walk.stop && walk.stop())) return false;
        items.push_back(node_json(c, walk, child_path(node, path, c, i)));
        shown = i + 1;
        return true;
      });
      out["items"] = std::move(items);
      const uint64_t count = child_count(node);
      if (shown < count && limit < count) out["omitted"] = count - shown;
      if (!node.attributes.empty()) out["attributes"] = attributes_json(node.attributes);
      attribute_errors_json(node, walk, path, out);
      break;
    }
    case model::NodeKind::kArray:
      if (node.is_listed_link()) {
        // A link listed with where it points, not data: no error, nothing to read here.
        out["kind"] = "link";
        out["link"] = link_json(*node.link);
        out["note"] = node.error.message;
        break;
      }
      out["kind"] = "array";
      if (node.link) out["link"] = link_json(*node.link);
      if (!node.error.empty()) {
        out["error"] = node.error.text();
        if (node.error.unsupported) out["unsupported"] = true;
        if (walk.unresolved) walk.unresolved(node, path);
        break;
      }
      out["dtype"] = dtype_json(node.dtype);
      out["shape"] = node.empty ? json(nullptr) : json(node.shape);
      if (node.empty) out["empty"] = true;
      // Where the bytes start in the file: contiguous storage's offset.
      if (node.storage.offset) out["address"] = *node.storage.offset;
      if (node.storage.kind != model::Storage::Kind::kUnknown || node.storage.mask ||
          !node.storage.max_shape.empty()) {
        out["storage"] = storage_json(node.storage);
      }
      if (!node.attributes.empty()) out["attributes"] = attributes_json(node.attributes);
      attribute_errors_json(node, walk, path, out);
      if (decorate) decorate(node, path, out);
      break;
  }
  if (!node.doc.empty()) out["doc"] = node.doc;
  return out;
}

}  // namespace dudley::cli
