#include "cli/model_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "cli/tree_json.hpp"
#include "dudley/core/text.hpp"
#include "dudley/model/value_json.hpp"

namespace dudley::cli {

namespace {
using json = nlohmann::ordered_json;

}  // namespace

const char* byte_order_text(ByteOrder order) {
  switch (order) {
    case ByteOrder::kLittle:
      return "little";
    case ByteOrder::kBig:
      return "big";
    default:
      return "none";
  }
}

json value_json(const model::Value& value) {
  return model::to_json(value);
}

json attributes_json(const model::Attributes& attributes) {
  // Names are unique (Attributes::set replaces), so members are appended: linear for the
  // 100,000 attributes of a large ASDF tree's root, where operator[] searches each time.
  json out = json::object();
  auto& members = out.get_ref<json::object_t&>();
  for (const auto& [name, v] : attributes) {
    if (const auto* tree = std::get_if<model::Value>(&v)) {
      if (const std::optional<DType> empty = model::well_known::empty_type(*tree)) {
        members.emplace_back(name, json{{"dtype", dtype_json(*empty)},
                                        {"shape", nullptr},
                                        {"empty", true},
                                        {"data", nullptr}});
        continue;
      }
      members.emplace_back(name, value_json(*tree));
    } else {
      const NDArray& a = std::get<NDArray>(v);
      members.emplace_back(name, json{{"dtype", dtype_json(a.dtype())},
                                      {"shape", a.shape().dims()},
                                      {"data", values_json(a.to_native())}});
    }
  }
  return out;
}

// A sharded chunk's inside: its grid, codecs and index, nested like the shards.
static json shard_json(const model::Chunking& c) {
  json out;
  out["chunk_shape"] = c.inner->chunk_shape;
  out["codecs"] = value_json(c.inner->codecs);
  out["index_codecs"] = value_json(c.index_codecs);
  out["index_location"] =
      c.index_location == model::Chunking::IndexLocation::kStart ? "start" : "end";
  if (c.inner->inner) out["shard"] = shard_json(*c.inner);
  return out;
}

json storage_json(const model::Storage& s) {
  json out;
  switch (s.kind) {
    case model::Storage::Kind::kUnknown:
      if (!s.mask && s.max_shape.empty()) return nullptr;  // only a mask or extents to say
      break;
    case model::Storage::Kind::kContiguous:
      out["layout"] = "contiguous";
      if (s.offset) out["offset"] = *s.offset;
      out["size"] = s.size;
      out["byteorder"] = byte_order_text(s.order);
      break;
    case model::Storage::Kind::kChunked:
      out["layout"] = "chunked";
      if (s.chunking) {
        out["chunk_shape"] = s.chunking->chunk_shape;
        out["codecs"] = value_json(s.chunking->codecs);
        if (s.chunking->fill_value) out["fill_value"] = value_json(*s.chunking->fill_value);
        if (s.chunking->inner) out["shard"] = shard_json(*s.chunking);
      }
      break;
  }
  if (!s.max_shape.empty()) {
    // The extents it may grow to: null for unlimited (h5py's maxshape None).
    json max = json::array();
    for (int64_t m : s.max_shape) max.push_back(m < 0 ? json(nullptr) : json(m));
    out["max_shape"] = std::move(max);
  }
  if (s.mask) {
    json mask = json::object();
    if (s.mask->value) mask["value"] = value_json(*s.mask->value);
    if (!s.mask->array.empty()) mask["array"] = s.mask->array;
    if (s.mask->elements) mask["inline"] = true;  // the data's nulls
    out["mask"] = std::move(mask);
  }
  return out;
}

// Elements of a typed attribute that `ls` text prints; larger ones show type and shape.
constexpr uint64_t kAttributeValuesShown = 64;

std::string attributes_text(const model::Attributes& attributes, size_t limit) {
  std::vector<std::string> parts;
  for (const auto& [name, v] : attributes) {
    if (parts.size() == limit) {
      parts.push_back("...");
      break;
    }
    std::string text;
    if (const auto* tree = std::get_if<model::Value>(&v)) {
      const std::optional<DType> empty = model::well_known::empty_type(*tree);
      text = empty ? fmt::format("Empty({})", empty->to_string()) : json_text(value_json(*tree));
    } else {
      // A typed array's values (cut below like any long value), as h5ls prints them.
      const NDArray& a = std::get<NDArray>(v);
      text = a.element_count() <= kAttributeValuesShown
                 ? json_text(values_json(a.to_native()))
                 : fmt::format("{}{}", a.dtype().to_string(), a.shape().to_string());
    }
    if (text.size() > 40) {
      size_t cut = 37;  // not inside a character's UTF-8 bytes
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = text.substr(0, cut) + "...";
    }
    parts.push_back(fmt::format("{}={}", name, text));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "masked by /m_mask", "masked where == -999", "masked where the data is null".
std::string mask_text(const model::Masking& m) {
  if (m.value) return "masked where == " + json_text(value_json(*m.value));
  if (m.elements) return "masked where the data is null";
  return "masked by " + m.array;
}

namespace {

// A chunking's codec names joined: "bytes+zstd".
std::string codec_names(const model::Chunking& c) {
  std::vector<std::string> names;
  if (c.codecs.is<model::ValueList>()) {
    for (const auto& codec : c.codecs.as<model::ValueList>()) {
      const model::Value* name = codec.find("name");
      if (!name || !name->is<std::string>()) continue;
      // A filter this machine lacks says so, and what to install (HDF5 plugins).
      const model::Value* missing = codec.find("unavailable");
      names.push_back(
          missing && missing->is<std::string>()
              ? fmt::format("{} ({})", name->as<std::string>(), missing->as<std::string>())
              : name->as<std::string>());
    }
  }
  return fmt::format("{}", fmt::join(names, "+"));
}

}  // namespace

std::string storage_text(const model::Storage& s) {
  std::string mask = s.mask ? mask_text(*s.mask) : std::string();
  if (s.kind != model::Storage::Kind::kChunked || !s.chunking) return mask;
  // Sharded: "sharded [256, 256] of [64, 64] bytes+zstd" (each level of shards; codecs
  // around a level in parentheses: "sharded [256, 256] (transpose+gzip) of ...").
  std::string text;
  const model::Chunking* c = s.chunking.get();
  for (; c->inner; c = c->inner.get()) {
    const std::string around = codec_names(*c);
    text += fmt::format("{} [{}]{} of ", text.empty() ? "sharded" : "shards",
                        fmt::join(c->chunk_shape, ", "), around.empty() ? "" : " (" + around + ")");
  }
  const std::string codecs = codec_names(*c);
  text += fmt::format("{}[{}]{}{}", text.empty() ? "chunked " : "", fmt::join(c->chunk_shape, ", "),
                      codecs.empty() ? "" : " ", codecs);
  return mask.empty() ? text : text + ", " + mask;
}

}  // namespace dudley::cli
