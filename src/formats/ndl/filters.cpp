#include "filters.hpp"

#include <fmt/format.h>

#include "values.hpp"

namespace dudley::ndl {
namespace {

using model::Value;
using model::ValueMap;

// NDL's names for the codecs whose codec-layer name differs.
struct Rename {
  const char* ndl;
  const char* codec;
};
constexpr Rename kRenames[] = {{"deflate", "zlib"}, {"bzip2", "bz2"}};

std::string codec_name(std::string_view ndl) {
  for (const Rename& r : kRenames) {
    if (ndl == r.ndl) return r.codec;
  }
  return std::string(ndl);
}

std::string ndl_name(const std::string& codec) {
  if (codec == "gzip") return "deflate";
  for (const Rename& r : kRenames) {
    if (codec == r.codec) return r.ndl;
  }
  return codec;
}

// Parameters that only restate the element size: NDL writes the bare filter name.
bool bare(const std::string& name) {
  return name == "shuffle" || name == "fletcher32";
}

}  // namespace

Value codecs_from_filters(const YamlNode& node, const std::string& path,
                          yaml::ExpansionBudget& budget) {
  auto fail = [&](const YamlNode& at, const std::string& what) {
    throw Error(ErrorCategory::kSemantic, what, yaml::location_of(at, path));
  };
  if (!node.is_sequence()) fail(node, "filter must be a list of filters");
  model::ValueList codecs;
  for (YamlRef item : node.items) {
    if (item->is_scalar() && !item->text.empty()) {
      codecs.emplace_back(
          ValueMap{{"name", codec_name(item->text)}, {"configuration", ValueMap{}}});
    } else if (item->is_mapping() && item->map_size() == 1) {
      const YamlNode& params = *item->items[1];
      Value config = params.is_mapping() ? yaml::to_value(params, path, budget) : Value(ValueMap{});
      if (!params.is_mapping() &&
          !(params.is_scalar() && yaml::scalar_value(params, path).is_null()))
        fail(params, "a filter's parameters must be a mapping");
      codecs.emplace_back(
          ValueMap{{"name", codec_name(item->items[0]->text)}, {"configuration", config}});
    } else {
      fail(*item, "each filter is a name or a mapping of a name to its parameters");
    }
  }
  return Value(std::move(codecs));
}

std::string filters_text(const Value& codecs) {
  if (!codecs.is<model::ValueList>() || codecs.as<model::ValueList>().empty()) return {};
  std::string out = "[";
  bool first = true;
  for (const Value& c : codecs.as<model::ValueList>()) {
    const Value* name = c.find("name");
    if (!name || !name->is<std::string>()) continue;
    const std::string n = ndl_name(name->as<std::string>());
    if (n == "bytes") continue;  // Zarr's serialisation step: the endian says it
    out += first ? "" : ", ";
    first = false;
    const Value* config = c.find("configuration");
    const bool has_config = config && config->is<ValueMap>() && !config->as<ValueMap>().empty();
    if (!has_config || bare(n)) {
      out += flow_string(n);
    } else {
      out += "{" + flow_string(n) + ": ";
      flow_yaml(out, *config);
      out += "}";
    }
  }
  return first ? std::string() : out + "]";
}

}  // namespace dudley::ndl
