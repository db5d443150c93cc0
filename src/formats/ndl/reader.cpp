// NDL document -> model tree. Two passes over the groups: DimCoords first (any ndarray of
// any group may name one in its shape), then ndarrays and attributes.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "datatype.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/formats/ndl.hpp"
#include "dudley/model/memory_source.hpp"
#include "filters.hpp"
#include "values.hpp"

namespace dudley::ndl {
namespace {

using model::Node;
using model::Value;
using yaml::location_of;

[[noreturn]] void fail(const YamlNode& at, const std::string& path, const std::string& what) {
  throw Error(ErrorCategory::kSemantic, what, location_of(at, path));
}

// The source of an array the document describes without its values.
class DescriptionOnly final : public model::ArraySource {
 public:
  explicit DescriptionOnly(std::string entity) : entity_(std::move(entity)) {}
  NDArray read() override { throw missing(); }
  NDArray read(const Hyperslab&) override { throw missing(); }

 private:
  Error missing() const {
    return Error(ErrorCategory::kData,
                 fmt::format("{} has no values: the NDL document describes it only", entity_));
  }
  std::string entity_;
};

struct DimCoord {
  std::optional<int64_t> size;  // nullopt: unlimited
  int64_t current = 0;
};

// What the storage directives of one entity say.
struct Directives {
  std::optional<std::vector<int64_t>> shape;  // ndarrays: current extent
  std::optional<int64_t> size;                // dimcoords: current size
  std::vector<int64_t> chunk;
  Value codecs;
  std::optional<ByteOrder> endian;
  std::optional<TextEncoding> charset;
  const YamlNode* fillvalue = nullptr;
};

// The type with the machine's byte order: the order values are parsed in.
DType native_of(const DType& t) {
  return t.size() > 1 && t.kind() != DTypeKind::kVLen ? t.with_byte_order(native_byte_order()) : t;
}

int64_t extent_of(const YamlNode& node, const std::string& path, const char* what) {
  const Value v = node.is_scalar() ? yaml::scalar_value(node, path) : Value();
  if (v.is<int64_t>() && v.as<int64_t>() >= 0) return v.as<int64_t>();
  fail(node, path, fmt::format("{} must be a non-negative integer", what));
}

void check_keys(const YamlNode& body, const std::string& path, const std::vector<std::string>& keys,
                const std::string& what) {
  for (size_t i = 0; i + 1 < body.items.size(); i += 2) {
    const YamlNode& key = *body.items[i];
    if (std::find(keys.begin(), keys.end(), key.text) == keys.end()) {
      fail(key, path,
           fmt::format("unknown key '{}' in {}{}; the keys are {}", key.text, what,
                       did_you_mean(std::string(key.text), keys), fmt::join(keys, ", ")));
    }
  }
}

class Reader {
 public:
  Reader(const yaml::YamlDocument& doc, size_t text_size, const std::string& path)
      : doc_(doc),
        path_(path),
        refs_(std::make_shared<model::ReferenceTable>()),
        budget_(std::max<uint64_t>(uint64_t{1} << 20, uint64_t{64} * text_size)),
        expansion_(doc, path) {}

  model::Tree read() {
    model::Tree tree;
    tree.format = "ndl";
    tree.root = std::make_unique<Node>();
    tree.root->kind = model::NodeKind::kGroup;
    groups_["/"] = tree.root.get();
    if (doc_.root) collect_groups(*doc_.root);
    for (const auto& [gpath, body] : bodies_) {
      if (const YamlNode* d = body->find("dimcoords")) dimcoords(gpath, *d);
    }
    for (const auto& entry : bodies_) {
      const std::string& gpath = entry.first;
      if (const YamlNode* n = entry.second->find("ndarrays")) ndarrays(gpath, *n);
      if (const YamlNode* a = entry.second->find("attributes")) {
        within("group " + gpath, [&] { attributes(*a, groups_[gpath]->attributes); });
      }
    }
    if (refs_->size() > 0) tree.references = refs_;
    return tree;
  }

 private:
  // Runs `f`, naming `entity` in the error it throws.
  template <typename F>
  void within(const std::string& entity, F&& f) {
    try {
      f();
    } catch (const yaml::ExpansionLimitError&) {
      throw;
    } catch (const Error& e) {
      if (e.message().starts_with(entity)) throw;
      throw Error(e.category(), entity + ": " + e.message(), e.location());
    }
  }

  void collect_groups(const YamlNode& root) {
    if (root.is_scalar() && yaml::scalar_value(root, path_).is_null()) return;
    if (!root.is_mapping())
      fail(root, path_, "an NDL document is a mapping of group paths (or of a group's keys)");
    bool hierarchical = false;
    for (size_t i = 0; i + 1 < root.items.size(); i += 2) {
      if (root.items[i]->text.starts_with("/")) hierarchical = true;
    }
    if (!hierarchical) {
      body("/", root, root);
      return;
    }
    for (size_t i = 0; i + 1 < root.items.size(); i += 2) {
      const YamlNode& key = *root.items[i];
      if (!key.text.starts_with("/")) {
        fail(key, path_,
             fmt::format("'{}' is not a group path: a document of group paths has only keys "
                         "starting with '/'",
                         key.text));
      }
      body(group_path(key), *root.items[i + 1], key);
    }
  }

  // A group path as the key spells it, checked and normalised ("/a/b").
  std::string group_path(const YamlNode& key) {
    const std::string_view text = key.text;
    if (text == "/") return "/";
    std::string out;
    size_t i = 1;
    while (i <= text.size()) {
      const size_t end = std::min(text.find('/', i), text.size());
      if (end == i) fail(key, path_, fmt::format("group path '{}' has an empty name", text));
      out += "/" + std::string(text.substr(i, end - i));
      i = end + 1;
    }
    return out;
  }

  void body(const std::string& gpath, const YamlNode& b, const YamlNode& key) {
    if (b.is_scalar() && yaml::scalar_value(b, path_).is_null()) {
      group(gpath, key);
      return;
    }
    if (!b.is_mapping())
      fail(b, path_,
           fmt::format("group {} must be a mapping (attributes, dimcoords, ndarrays)", gpath));
    check_keys(b, path_, {"attributes", "dimcoords", "ndarrays"}, "group " + gpath);
    if (!given_.insert(gpath).second)
      fail(key, path_, fmt::format("group {} is given twice", gpath));
    group(gpath, key);
    bodies_.emplace_back(gpath, &b);
  }

  // The group at `gpath`, made with its ancestors when missing.
  Node& group(const std::string& gpath, const YamlNode& at) {
    if (auto it = groups_.find(gpath); it != groups_.end()) {
      if (it->second->kind != model::NodeKind::kGroup)
        fail(at, path_, fmt::format("{} is an array, not a group", gpath));
      return *it->second;
    }
    const size_t slash = gpath.rfind('/');
    const std::string parent_path = slash == 0 ? "/" : gpath.substr(0, slash);
    Node& parent = group(parent_path, at);
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kGroup;
    node->name = gpath.substr(slash + 1);
    Node& made = add_member(parent, gpath, std::move(node), at);
    return made;
  }

  Node& add_member(Node& parent, const std::string& full, std::unique_ptr<Node> node,
                   const YamlNode& at) {
    if (!groups_.emplace(full, node.get()).second)
      fail(at, path_, fmt::format("{} is given twice (names in a group are unique)", full));
    parent.children.push_back(std::move(node));
    return *parent.children.back();
  }

  Directives storage(const YamlNode* node, bool ndarray) {
    Directives d;
    if (!node) return d;
    if (!node->is_mapping()) fail(*node, path_, "storage must be a mapping of directives");
    check_keys(*node, path_,
               {ndarray ? "shape" : "size", "chunk", "filter", "endian", "charset", "fillvalue"},
               "storage");
    if (const YamlNode* s = node->find("shape")) {
      if (!s->is_sequence()) fail(*s, path_, "storage shape must be a list of extents");
      std::vector<int64_t> shape;
      for (YamlRef x : s->items) shape.push_back(extent_of(*x, path_, "a stored extent"));
      d.shape = shape;
    }
    if (const YamlNode* s = node->find("size")) d.size = extent_of(*s, path_, "storage size");
    if (const YamlNode* c = node->find("chunk")) {
      if (!c->is_sequence() || c->items.empty()) fail(*c, path_, "chunk must be a list of extents");
      for (YamlRef x : c->items) {
        const int64_t n = extent_of(*x, path_, "a chunk extent");
        if (n == 0) fail(*x, path_, "chunk extents must be positive");
        d.chunk.push_back(n);
      }
    }
    if (const YamlNode* f = node->find("filter"))
      d.codecs = codecs_from_filters(*f, path_, expansion_);
    if (const YamlNode* e = node->find("endian")) {
      if (e->text == "little" && e->is_scalar()) {
        d.endian = ByteOrder::kLittle;
      } else if (e->text == "big" && e->is_scalar()) {
        d.endian = ByteOrder::kBig;
      } else {
        fail(*e, path_, "endian must be 'little' or 'big'");
      }
    }
    if (const YamlNode* c = node->find("charset")) {
      std::string name(c->text);
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      if (name == "ascii" || name == "us-ascii") {
        d.charset = TextEncoding::kAscii;
      } else if (name == "utf-8" || name == "utf8") {
        d.charset = TextEncoding::kUtf8;
      } else {
        fail(*c, path_, "charset must be 'ascii' or 'utf-8'");
      }
    }
    d.fillvalue = node->find("fillvalue");
    return d;
  }

  // The entity's type with its storage's byte order and character set.
  static DType stored_type(DType t, const Directives& d) {
    if (d.charset && t.kind() == DTypeKind::kVLen && t.base().joins_units())
      t = DType::vlen(DType::text(*d.charset));
    if (d.endian && t.size() > 1 && t.kind() != DTypeKind::kVLen) t = t.with_byte_order(*d.endian);
    return t;
  }

  // Applies what storage says to `node` (an array of `native` type, its values native).
  void apply_storage(Node& node, const Directives& d, const DType& native, const YamlNode& at) {
    if (!d.chunk.empty()) {
      if (d.chunk.size() != node.shape.size())
        fail(at, path_,
             fmt::format("chunk has {} extents for an array of rank {}", d.chunk.size(),
                         node.shape.size()));
      auto chunking = std::make_shared<model::Chunking>();
      chunking->chunk_shape = d.chunk;
      chunking->codecs = d.codecs.is_null() ? Value(model::ValueList{}) : d.codecs;
      node.storage.kind = model::Storage::Kind::kChunked;
      node.storage.chunking = std::move(chunking);
    } else if (!d.codecs.is_null() && !d.codecs.as<model::ValueList>().empty()) {
      // Filters without a chunk shape: kept as one chunk of the whole array.
      auto chunking = std::make_shared<model::Chunking>();
      chunking->chunk_shape = node.shape;
      chunking->codecs = d.codecs;
      node.storage.kind = model::Storage::Kind::kChunked;
      node.storage.chunking = std::move(chunking);
    }
    if (d.endian) node.storage.order = *d.endian;
    if (d.fillvalue) {
      NDArray fill = parse_value(*d.fillvalue, native, {}, path_, *refs_, budget_);
      node.attributes.set(model::well_known::kFillValue, std::move(fill));
    }
  }

  void dimcoords(const std::string& gpath, const YamlNode& map) {
    if (!map.is_mapping()) fail(map, path_, "dimcoords must be a mapping of names to dimcoords");
    Node& g = *groups_[gpath];
    for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
      const YamlNode& key = *map.items[i];
      const std::string full = join_path(gpath, key.text);
      within("dimcoord " + full, [&] { dimcoord(g, full, key, *map.items[i + 1]); });
    }
  }

  void dimcoord(Node& g, const std::string& full, const YamlNode& key, const YamlNode& b) {
    if (!b.is_mapping())
      fail(b, path_, "a dimcoord is a mapping (size, type, value, storage, attributes)");
    check_keys(b, path_, {"size", "type", "value", "storage", "attributes"}, "a dimcoord");
    const YamlNode* type = b.find("type");
    if (!type) fail(key, path_, "has no 'type'");
    const DType native = parse_type(*type, path_);
    const YamlNode* value = b.find("value");
    const Directives d = storage(b.find("storage"), false);
    DimCoord dc;
    if (const YamlNode* s = b.find("size")) {
      const Value v = s->is_scalar() ? yaml::scalar_value(*s, path_) : Value(false);
      if (!v.is_null()) dc.size = extent_of(*s, path_, "size");
    } else if (value && value->is_sequence()) {
      dc.size = static_cast<int64_t>(value->items.size());
    } else {
      fail(key, path_, "has no 'size'");
    }
    if (d.size) {
      if (dc.size && *d.size > *dc.size)
        fail(*b.find("storage"), path_,
             fmt::format("stored size {} exceeds the size {}", *d.size, *dc.size));
      dc.current = *d.size;
    } else if (dc.size) {
      dc.current = *dc.size;
    } else if (value && value->is_sequence()) {
      dc.current = static_cast<int64_t>(value->items.size());
    }
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = std::string(key.text);
    node->dtype = stored_type(native, d);
    node->shape = {dc.current};
    if (!dc.size || *dc.size != dc.current) node->storage.max_shape = {dc.size ? *dc.size : -1};
    apply_storage(*node, d, native, b.find("storage") ? *b.find("storage") : key);
    node->data =
        value
            ? model::memory_source(parse_value(*value, native, node->shape, path_, *refs_, budget_))
            : std::make_shared<DescriptionOnly>("dimcoord " + full);
    node->attributes.set(model::well_known::kDimensionNames,
                         Value(model::ValueList{Value(node->name)}));
    node->attributes.set(model::well_known::kDimensionCoordinates,
                         Value(model::ValueList{Value(full)}));
    if (const YamlNode* a = b.find("attributes")) attributes(*a, node->attributes);
    dimcoords_[full] = dc;
    add_member(g, full, std::move(node), key);
  }

  void ndarrays(const std::string& gpath, const YamlNode& map) {
    if (!map.is_mapping()) fail(map, path_, "ndarrays must be a mapping of names to ndarrays");
    Node& g = *groups_[gpath];
    for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
      const YamlNode& key = *map.items[i];
      const std::string full = join_path(gpath, key.text);
      within("ndarray " + full, [&] { ndarray(g, gpath, full, key, *map.items[i + 1]); });
    }
  }

  // The DimCoord a shape names: an absolute path, or a name looked up in the ndarray's
  // group and then its ancestors.
  std::pair<std::string, DimCoord> resolve(const YamlNode& ref, const std::string& gpath) {
    const std::string name(ref.text);
    if (name.starts_with("/")) {
      if (auto it = dimcoords_.find(name); it != dimcoords_.end()) return *it;
    } else {
      for (std::string g = gpath;; g = g.substr(0, std::max<size_t>(g.rfind('/'), 1))) {
        if (auto it = dimcoords_.find(join_path(g, name)); it != dimcoords_.end()) return *it;
        if (g == "/") break;
      }
    }
    std::vector<std::string> known;
    for (const auto& [p, _] : dimcoords_) known.push_back(p);
    fail(ref, path_,
         fmt::format("shape names '{}', which is no DimCoord of this document{}", name,
                     did_you_mean(name, known)));
  }

  void ndarray(Node& g, const std::string& gpath, const std::string& full, const YamlNode& key,
               const YamlNode& b) {
    if (!b.is_mapping())
      fail(b, path_, "an ndarray is a mapping (shape, type, value, storage, attributes)");
    check_keys(b, path_, {"shape", "type", "value", "storage", "attributes"}, "an ndarray");
    const YamlNode* type = b.find("type");
    if (!type) fail(key, path_, "has no 'type'");
    const DType native = parse_type(*type, path_);
    const YamlNode* shape = b.find("shape");
    if (!shape) fail(key, path_, "has no 'shape'");
    if (!shape->is_sequence()) fail(*shape, path_, "shape must be a list of dimensions");
    const YamlNode* value = b.find("value");
    const Directives d = storage(b.find("storage"), true);
    const size_t rank = shape->items.size();
    std::vector<int64_t> max(rank), current(rank);
    model::ValueList coord_paths, coord_names;
    bool any_coord = false;
    for (size_t k = 0; k < rank; ++k) {
      const YamlNode& dim = *shape->items[k];
      const Value v = dim.is_scalar() ? yaml::scalar_value(dim, path_) : Value(false);
      if (v.is_null()) {
        max[k] = -1;
        coord_paths.emplace_back();
        coord_names.emplace_back();
      } else if (dim.is_scalar() && v.is<std::string>()) {
        const auto [p, dc] = resolve(dim, gpath);
        max[k] = dc.size ? *dc.size : -1;
        current[k] = dc.current;
        coord_paths.emplace_back(p);
        coord_names.emplace_back(p.substr(p.rfind('/') + 1));
        any_coord = true;
      } else {
        max[k] = extent_of(dim, path_, "a dimension");
        coord_paths.emplace_back();
        coord_names.emplace_back();
      }
      if (max[k] >= 0 && coord_paths.back().is_null()) current[k] = max[k];
      if (max[k] < 0 && coord_paths.back().is_null()) {
        // Unlimited without a DimCoord: as many as the value holds, else none.
        const YamlNode* level = value;
        for (size_t j = 0; j < k && level && level->is_sequence() && !level->items.empty(); ++j)
          level = level->items[0];
        current[k] = level && level->is_sequence() ? static_cast<int64_t>(level->items.size()) : 0;
      }
    }
    if (d.shape) {
      if (d.shape->size() != rank)
        fail(*b.find("storage"), path_,
             fmt::format("storage shape has {} extents for an array of rank {}", d.shape->size(),
                         rank));
      for (size_t k = 0; k < rank; ++k) {
        if (max[k] >= 0 && (*d.shape)[k] > max[k])
          fail(*b.find("storage"), path_,
               fmt::format("stored extent {} exceeds the extent {} of dimension {}", (*d.shape)[k],
                           max[k], k));
      }
      current = *d.shape;
    }
    auto node = std::make_unique<Node>();
    node->kind = model::NodeKind::kArray;
    node->name = std::string(key.text);
    node->dtype = stored_type(native, d);
    node->shape = current;
    if (max != current) node->storage.max_shape = max;
    apply_storage(*node, d, native, b.find("storage") ? *b.find("storage") : key);
    node->data =
        value ? model::memory_source(parse_value(*value, native, current, path_, *refs_, budget_))
              : std::make_shared<DescriptionOnly>("ndarray " + full);
    if (any_coord) {
      node->attributes.set(model::well_known::kDimensionNames, Value(std::move(coord_names)));
      node->attributes.set(model::well_known::kDimensionCoordinates, Value(std::move(coord_paths)));
    }
    if (const YamlNode* a = b.find("attributes")) attributes(*a, node->attributes);
    add_member(g, full, std::move(node), key);
  }

  void attributes(const YamlNode& map, model::Attributes& out) {
    if (map.is_scalar() && yaml::scalar_value(map, path_).is_null()) return;
    if (!map.is_mapping()) fail(map, path_, "attributes must be a mapping of names to values");
    for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
      const YamlNode& key = *map.items[i];
      const YamlNode& v = *map.items[i + 1];
      const std::string name(key.text);
      within("attribute " + name, [&] {
        if (v.is_scalar()) {
          const Value s = yaml::scalar_value(v, path_);
          if (s.is<std::string>()) {
            out.set(name, s);
          } else {
            out.set(name, short_form_value(v, path_));
          }
          return;
        }
        if (!v.is_mapping() || !v.find("type")) {
          fail(v, path_,
               "an attribute is a string or a number, or a mapping with 'type', 'shape' and "
               "'value'");
        }
        check_keys(v, path_, {"shape", "type", "value", "storage"}, "an attribute");
        DType t = parse_type(*v.find("type"), path_);
        if (const YamlNode* st = v.find("storage")) {
          // Attributes keep their values' byte order and character set only.
          if (!st->is_mapping()) fail(*st, path_, "storage must be a mapping of directives");
          check_keys(*st, path_, {"endian", "charset"}, "an attribute's storage");
          t = stored_type(t, storage(st, false));
        }
        std::vector<int64_t> shape;
        if (const YamlNode* s = v.find("shape")) {
          if (!s->is_sequence()) fail(*s, path_, "shape must be a list of extents");
          for (YamlRef x : s->items) shape.push_back(extent_of(*x, path_, "an attribute extent"));
        }
        const YamlNode* value = v.find("value");
        if (!value) fail(v, path_, "has no 'value'");
        NDArray a = parse_value(*value, native_of(t), shape, path_, *refs_, budget_);
        if (shape.empty() && t.kind() == DTypeKind::kVLen && t.base().joins_units()) {
          // A scalar string in full form is the same attribute as in short form.
          out.set(name, yaml::scalar_value(*value, path_));
        } else if (t.needs_swap() && t.kind() != DTypeKind::kCompound) {
          out.set(name, a.in_order_of(t));  // `endian: big` kept, as HDF5 stored it
        } else {
          out.set(name, std::move(a));
        }
      });
    }
  }

  const yaml::YamlDocument& doc_;
  const std::string& path_;
  std::shared_ptr<model::ReferenceTable> refs_;
  uint64_t budget_;
  yaml::ExpansionBudget expansion_;
  std::vector<std::pair<std::string, const YamlNode*>> bodies_;
  std::set<std::string> given_;          // paths of the groups the document gives a body
  std::map<std::string, Node*> groups_;  // every member by path: groups and arrays
  std::map<std::string, DimCoord> dimcoords_;
};

}  // namespace

model::Tree read_ndl(std::string_view text, const std::string& path) {
  const yaml::YamlDocument doc = yaml::parse_yaml(text, path);
  return Reader(doc, text.size(), path).read();
}

model::Tree open_ndl(const std::string& path, const NdlOpenOptions&, const OpenOptions& common) {
  const std::string text = io::read_text(path, common.store);
  return read_ndl(text, path);
}

}  // namespace dudley::ndl
