#include "cli/model_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <unordered_set>

#include "cli/tree_json.hpp"
#include "dudley/core/text.hpp"

namespace dudley::cli {

namespace {
using json = nlohmann::ordered_json;

// nlohmann's ordered_json finds a member by linear search, so filling an object of n
// members with operator[] costs n^2/2 string comparisons (100,000 ASDF keys took 14 s).
// Members are appended instead; the names seen are remembered (hashed, once there are
// enough to matter) so that a repeated name still keeps one member with its last value.
class ObjectFiller {
 public:
  explicit ObjectFiller(json& object) : object_(object) { object_ = json::object(); }

  void set(const std::string& name, json value) {
    auto& members = object_.get_ref<json::object_t&>();
    if (members.size() < kLinearSearchBelow) {
      object_[name] = std::move(value);
      return;
    }
    if (seen_.empty()) {
      for (const auto& member : members) seen_.insert(member.first);
    }
    if (seen_.insert(name).second) {
      members.emplace_back(name, std::move(value));  // the vector's append: no search
    } else {
      object_[name] = std::move(value);
    }
  }

 private:
  static constexpr size_t kLinearSearchBelow = 16;
  json& object_;
  std::unordered_set<std::string> seen_;
};

const char* order_name(ByteOrder order) {
  switch (order) {
    case ByteOrder::kLittle:
      return "little";
    case ByteOrder::kBig:
      return "big";
    default:
      return "none";
  }
}
}  // namespace

json value_json(const model::Value& value) {
  // Recursive: a format builds values nested at most model::kMaxValueDepth deep.
  json out = std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) return "NaN";
          if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
          return v;
        } else if constexpr (std::is_same_v<T, model::ValueBytes>) {
          return json{{"base64", encode_base64(v)}};
        } else if constexpr (std::is_same_v<T, model::ValueList>) {
          json list = json::array();
          for (const auto& item : v) list.push_back(value_json(item));
          return list;
        } else if constexpr (std::is_same_v<T, model::ValueMap>) {
          json map;
          ObjectFiller fill(map);
          for (const auto& [k, item] : v) fill.set(k, value_json(item));
          return map;
        } else {
          return v;
        }
      },
      value.storage());
  if (!value.tag().empty()) return json{{"tag", value.tag()}, {"value", std::move(out)}};
  return out;
}

json attributes_json(const model::Attributes& attributes) {
  json out;
  ObjectFiller fill(out);
  for (const auto& [name, v] : attributes) {
    if (const auto* tree = std::get_if<model::Value>(&v)) {
      fill.set(name, value_json(*tree));
    } else {
      const NDArray& a = std::get<NDArray>(v);
      fill.set(name, json{{"dtype", dtype_json(a.dtype())},
                          {"shape", a.shape().dims()},
                          {"data", values_json(a.to_native())}});
    }
  }
  return out;
}

json storage_json(const model::Storage& s) {
  json out;
  switch (s.kind) {
    case model::Storage::Kind::kUnknown:
      if (!s.mask) return nullptr;  // inline data: only its mask to say
      break;
    case model::Storage::Kind::kContiguous:
      out["layout"] = "contiguous";
      if (s.offset) out["offset"] = *s.offset;
      out["size"] = s.size;
      out["byteorder"] = order_name(s.order);
      break;
    case model::Storage::Kind::kChunked:
      out["layout"] = "chunked";
      if (s.chunking) {
        out["chunk_shape"] = s.chunking->chunk_shape;
        out["codecs"] = value_json(s.chunking->codecs);
        if (s.chunking->fill_value) out["fill_value"] = value_json(*s.chunking->fill_value);
      }
      break;
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

std::string attributes_text(const model::Attributes& attributes, size_t limit) {
  std::vector<std::string> parts;
  for (const auto& [name, v] : attributes) {
    if (parts.size() == limit) {
      parts.push_back("...");
      break;
    }
    std::string text;
    if (const auto* tree = std::get_if<model::Value>(&v)) {
      text = value_json(*tree).dump();
    } else {
      const NDArray& a = std::get<NDArray>(v);
      text = fmt::format("{}{}", a.dtype().to_string(), a.shape().to_string());
    }
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    parts.push_back(fmt::format("{}={}", name, text));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "masked by /m_mask", "masked where == -999", "masked where the data is null".
std::string mask_text(const model::Masking& m) {
  if (m.value) return "masked where == " + value_json(*m.value).dump();
  if (m.elements) return "masked where the data is null";
  return "masked by " + m.array;
}

std::string storage_text(const model::Storage& s) {
  const std::string mask = s.mask ? mask_text(*s.mask) : std::string();
  if (s.kind != model::Storage::Kind::kChunked || !s.chunking) return mask;
  std::vector<std::string> codecs;
  if (s.chunking->codecs.is<model::ValueList>()) {
    for (const auto& c : s.chunking->codecs.as<model::ValueList>()) {
      const model::Value* name = c.find("name");
      if (name && name->is<std::string>()) codecs.push_back(name->as<std::string>());
    }
  }
  return fmt::format("chunked [{}]{}{}{}", fmt::join(s.chunking->chunk_shape, ", "),
                     codecs.empty() ? "" : " ", fmt::join(codecs, "+"),
                     mask.empty() ? "" : ", " + mask);
}

}  // namespace dudley::cli
