#include "reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/model/member_names.hpp"
#include "dudley/model/value_json.hpp"
#include "json_text.hpp"
#include "metadata.hpp"
#include "source.hpp"

namespace dudley::zarr {
namespace {

// Groups nested deeper than this are listed as errors (a store of a few bytes of directory
// entries should not make a walk of unbounded depth).
constexpr int kMaxDepth = 64;

std::string key_in(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "/" + name;
}

// The text of metadata document `key`, or nullopt when absent: one request to a server.
std::optional<std::string> document(const io::Store& store, const std::string& key) {
  codec::Bytes bytes;
  io::RangeRequest request{key, 0, kMaxMetadataBytes, true, &bytes, true};
  store.read_many({&request, 1});  // Error(kLimit) for a document of more
  if (!request.found) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A name no node may have, as a path would read it: "" (a listing's "a//b"), "." and ".."
// (of "a/./b", "a/../b"), any made of dots only, one holding a '/' or a NUL.
bool no_node_name(std::string_view name) {
  return name.empty() || name.find_first_not_of('.') == std::string_view::npos ||
         name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos;
}

// The names of the nodes directly under `prefix`, sorted: the subdirectories that hold a
// zarr.json, .zarray or .zgroup. Names the spec reserves (starting "__") are left out.
std::vector<std::string> child_nodes(const io::Store& store, const std::string& prefix) {
  std::vector<std::string> names;
  for (std::string& name : store.subdirectories(prefix)) {
    if (name.starts_with("__")) continue;
    // A name no node may have ("..", "." or "" from a listing's "a/../b", "a/./b", "a//b"):
    // kept, so that node_at lists it with why it is not read, never left out silently.
    if (no_node_name(name)) {
      names.push_back(std::move(name));
      continue;
    }
    for (const char* meta : {"zarr.json", ".zarray", ".zgroup"}) {
      bool present = false;
      try {
        present = store.size(key_in(key_in(prefix, name), meta)).has_value();
      } catch (const io::NotAValue&) {
        present = false;  // a directory named zarr.json is no document: not a node
      } catch (const Error&) {
        // A document that cannot be read (one the rule for reading refuses, a permission)
        // is a node, listed with that error when it is read, never left out silently.
        present = true;
      }
      if (present) {
        names.push_back(std::move(name));
        break;
      }
    }
  }
  return names;
}

}  // namespace

NodeMetadata read_node_metadata(const io::Store& store, const std::string& prefix) {
  const std::string key = key_in(prefix, "zarr.json");
  if (auto text = document(store, key)) return parse_metadata(*text, store.where(key));
  // A v2 node: .zarray or .zgroup, attributes in .zattrs.
  const std::string attributes = document(store, key_in(prefix, ".zattrs")).value_or("");
  for (const char* name : {".zarray", ".zgroup"}) {
    const std::string v2 = key_in(prefix, name);
    if (auto text = document(store, v2)) {
      return parse_metadata_v2(*text, attributes, store.where(v2), name[2] == 'a');
    }
  }
  // A URL without an extension is read as a store: it may be another format's object.
  const bool remote_root = store.remote() && prefix.empty();
  throw Error(ErrorCategory::kData,
              fmt::format("no zarr.json (or v2 .zarray, .zgroup) here: not a Zarr node{}",
                          remote_root ? " (a URL without an extension is read as a Zarr store; "
                                        "for another format's object give --format, or --layout "
                                        "for Dudley data)"
                                      : ""),
              Location::file(store.where(key)));
}

namespace {

// A shard's codecs are those around sharding_indexed (usually none; its inner grid and
// index are the Chunking's own fields); other chunks' are the whole pipeline.
model::Value codecs_value(const Pipeline& p) {
  nlohmann::ordered_json codecs = p.to_json();
  if (p.sharding) {
    nlohmann::ordered_json around = nlohmann::ordered_json::array();
    for (auto& c : codecs) {
      if (c["name"] != "sharding_indexed") around.push_back(std::move(c));
    }
    codecs = std::move(around);
  }
  return model::from_json(codecs);
}

// The model's description of how the chunks are stored (shown by ls and ls --json).
std::shared_ptr<const model::Chunking> chunking_of(const Pipeline& p,
                                                   const std::vector<int64_t>& chunk_shape) {
  auto c = std::make_shared<model::Chunking>();
  c->chunk_shape = chunk_shape;
  c->codecs = codecs_value(p);
  if (p.sharding) {
    c->inner = chunking_of(p.sharding->codecs, p.sharding->chunk_shape);
    c->index_codecs = codecs_value(p.sharding->index_codecs);
    c->index_location = p.sharding->index_at_end ? model::Chunking::IndexLocation::kEnd
                                                 : model::Chunking::IndexLocation::kStart;
  }
  return c;
}

void set_attributes(model::Node& node, const nlohmann::ordered_json& attributes) {
  for (const auto& [name, value] : attributes.items()) {
    node.attributes.set(name, model::from_json(value));
  }
}

std::unique_ptr<model::Node> array_node(std::shared_ptr<const io::Store> store,
                                        const std::string& prefix, ArrayMetadata a) {
  auto node = std::make_unique<model::Node>();
  node->kind = model::NodeKind::kArray;
  node->dtype = a.dtype;
  node->shape = a.shape;
  set_attributes(*node, a.attributes);
  if (a.dimension_names) {
    model::ValueList names;
    for (const auto& n : *a.dimension_names) names.push_back(n ? model::Value(*n) : model::Value());
    node->attributes.set(model::well_known::kDimensionNames, model::Value(std::move(names)));
  }
  node->storage.kind = model::Storage::Kind::kChunked;
  node->storage.order = a.dtype.byte_order();
  auto chunking = std::make_shared<model::Chunking>(*chunking_of(a.codecs, a.chunk_shape));
  const DType native =
      a.dtype.needs_swap() ? a.dtype.with_byte_order(native_byte_order()) : a.dtype;
  if (a.fill_null) {
    // No fill value: none in the model either (a writer then writes none).
  } else if (!numpy_only_type(a.dtype)) {
    chunking->fill_value = model::from_json(fill_value_to_json(a.fill, native));
  } else if (a.dtype.kind() != DTypeKind::kText) {
    // A structure's or void's fill: its bytes (native order), which only its array reads.
    const auto* b = reinterpret_cast<const uint8_t*>(a.fill.bytes.data());
    chunking->fill_value = model::Value(model::ValueBytes(b, b + a.fill.bytes.size()));
  } else {
    // Fixed strings: the fill as text.
    std::string text;
    if (a.dtype.encoding() == TextEncoding::kUtf32) {
      text = v2_fill_to_json(a.fill, a.dtype).get<std::string>();
    } else {
      // Text up to its first NUL (an empty fill has no bytes, and no pointer to give strnlen).
      const std::string_view bytes(reinterpret_cast<const char*>(a.fill.bytes.data()),
                                   a.fill.bytes.size());
      text.assign(bytes.substr(0, std::min(bytes.find('\0'), bytes.size())));
    }
    chunking->fill_value = model::Value(std::move(text));
  }
  node->storage.chunking = std::move(chunking);
  try {
    node->data = make_array_source(std::move(store), prefix, std::move(a));
  } catch (const Error& e) {
    node->error = model::NodeError::from(e);
    node->error.unsupported = e.category() == ErrorCategory::kType;
  }
  return node;
}

std::unique_ptr<model::Node> node_at(const std::shared_ptr<const io::Store>& store,
                                     const std::string& prefix, int depth) {
  NodeMetadata meta = read_node_metadata(*store, prefix);
  if (meta.array) return array_node(store, prefix, std::move(*meta.array));
  auto group = std::make_unique<model::Node>();
  group->kind = model::NodeKind::kGroup;
  set_attributes(*group, meta.group.attributes);
  for (const std::string& name : child_nodes(*store, prefix)) {
    std::unique_ptr<model::Node> child;
    try {
      if (depth >= kMaxDepth) {
        throw Error(ErrorCategory::kLimit,
                    fmt::format("groups nested more than {} deep are not read", kMaxDepth),
                    Location::file(store->where(key_in(prefix, name))));
      }
      if (no_node_name(name)) {
        throw Error(ErrorCategory::kData,
                    fmt::format("the store lists a node named {}, which no node may have (it "
                                "would be a path: a folder of its own, or the one above): not "
                                "read",
                                model::quoted_name(name)),
                    Location::file(store->name()));
      }
      child = node_at(store, key_in(prefix, name), depth + 1);
    } catch (const Error& e) {
      // Listed with its error: the rest of the store still reads.
      child = std::make_unique<model::Node>();
      child->kind = model::NodeKind::kArray;
      child->error = model::NodeError::from(e);
      child->error.unsupported = e.category() == ErrorCategory::kType;
    }
    child->name = name;
    group->children.push_back(std::move(child));
  }
  return group;
}

// A store whose metadata documents come from its consolidated metadata (v3: the root
// zarr.json's "consolidated_metadata"; v2: .zmetadata), which also lists the groups'
// members: what a web server, which lists nothing, needs. Chunks come from the store.
class ConsolidatedStore final : public io::Store {
 public:
  ConsolidatedStore(std::shared_ptr<const io::Store> base, std::map<std::string, std::string> docs)
      : base_(std::move(base)), docs_(std::move(docs)) {}
  const std::string& name() const override { return base_->name(); }
  std::optional<uint64_t> size(const std::string& key) const override {
    auto it = docs_.find(key);
    if (it != docs_.end()) return it->second.size();
    return base_->size(key);
  }
  void read(const std::string& key, uint64_t offset, uint64_t length,
            std::byte* out) const override {
    auto it = docs_.find(key);
    if (it == docs_.end()) return base_->read(key, offset, length, out);
    if (offset > it->second.size() || length > it->second.size() - offset) {
      throw Error(ErrorCategory::kData, "beyond the end of the metadata",
                  Location::file(where(key)));
    }
    std::memcpy(out, it->second.data() + offset, length);
  }
  // Chunks, listings of them, and batched reads are the store's; metadata comes from here.
  bool can_list() const override { return base_->can_list(); }
  bool for_each_key(const std::string& prefix,
                    const std::function<void(std::string_view)>& visit) const override {
    return base_->for_each_key(prefix, visit);
  }
  bool remote() const override { return base_->remote(); }
  void read_many(std::span<io::RangeRequest> requests) const override {
    std::vector<io::RangeRequest> rest;
    std::vector<size_t> rest_at;
    for (size_t i = 0; i < requests.size(); ++i) {
      io::RangeRequest& r = requests[i];
      auto it = docs_.find(r.key);
      if (it == docs_.end()) {
        rest.push_back(r);
        rest_at.push_back(i);
        continue;
      }
      const uint64_t length = r.whole ? it->second.size() : r.length;
      r.out->resize(length);
      read(r.key, r.whole ? 0 : r.offset, length, r.out->data());
      r.found = true;
    }
    if (rest.empty()) return;
    base_->read_many(rest);
    for (size_t k = 0; k < rest.size(); ++k) requests[rest_at[k]].found = rest[k].found;
  }
  std::optional<uint64_t> read_tail(const std::string& key, uint64_t length,
                                    std::byte* out) const override {
    auto it = docs_.find(key);
    if (it == docs_.end()) return base_->read_tail(key, length, out);
    const uint64_t n = std::min<uint64_t>(length, it->second.size());
    std::memcpy(out, it->second.data() + (it->second.size() - n), n);
    return it->second.size();
  }

  std::vector<std::string> subdirectories(const std::string& prefix) const override {
    std::set<std::string> names;
    const std::string lead = prefix.empty() ? "" : prefix + "/";
    for (const auto& [key, text] : docs_) {
      if (key.rfind(lead, 0) != 0) continue;
      const std::string rest = key.substr(lead.size());
      const size_t slash = rest.find('/');
      if (slash == std::string::npos) continue;
      const std::string file = rest.substr(slash + 1);
      if (file != "zarr.json" && file != ".zarray" && file != ".zgroup") continue;
      // Every name, ".inf" and ".." too: node_at lists one no node may have with why.
      const std::string name = rest.substr(0, slash);
      if (name.rfind("__", 0) != 0) names.insert(name);
    }
    return {names.begin(), names.end()};
  }

 private:
  std::shared_ptr<const io::Store> base_;
  std::map<std::string, std::string> docs_;
};

// The consolidated metadata of `store` as documents by key; empty when it has none.
std::map<std::string, std::string> consolidated(const io::Store& store) {
  std::map<std::string, std::string> docs;
  auto add_all = [&](const nlohmann::ordered_json& metadata, bool v3, const std::string& where) {
    if (!metadata.is_object()) {
      throw Error(ErrorCategory::kData, "consolidated metadata must be an object",
                  Location::file(where));
    }
    for (const auto& [path, doc] : metadata.items()) {
      // Keys name nodes inside the store: nothing absolute or climbing out of it.
      if (path.empty() || path.front() == '/' || path.find("..") != std::string::npos) {
        throw Error(
            ErrorCategory::kData,
            fmt::format("consolidated metadata names \"{}\", not a node of the store", path),
            Location::file(where));
      }
      docs[v3 ? path + "/zarr.json" : path] = doc.dump();
    }
  };
  if (auto text = document(store, "zarr.json")) {
    const JsonDocument root = parse_json_document(*text, store.where("zarr.json"));
    if (root.value.is_object() && root.value.contains("consolidated_metadata") &&
        root.value["consolidated_metadata"].is_object() &&
        root.value["consolidated_metadata"].contains("metadata")) {
      add_all(root.value["consolidated_metadata"]["metadata"], true, store.where("zarr.json"));
      docs["zarr.json"] = *text;  // read once
    }
  } else if (auto v2 = document(store, ".zmetadata")) {
    const JsonDocument z = parse_json_document(*v2, store.where(".zmetadata"));
    if (z.value.is_object() && z.value.contains("metadata")) {
      add_all(z.value["metadata"], false, store.where(".zmetadata"));
    }
  }
  return docs;
}

}  // namespace

model::Tree open_zarr(const std::shared_ptr<const io::Store>& store, const ZarrOpenOptions&,
                      const OpenOptions&) {
  model::Tree tree;
  tree.format = "zarr";  // v2 and v3 alike
  // A store that cannot list its groups' members lists them from its consolidated metadata,
  // and so does a remote one (S3, a web server): one read instead of a listing and a read
  // of every node's metadata, as zarr-python and xarray open such stores.
  std::shared_ptr<const io::Store> source = store;
  if (!store->can_list() || store->remote()) {
    std::map<std::string, std::string> docs = consolidated(*store);
    if (!docs.empty()) source = std::make_shared<ConsolidatedStore>(store, std::move(docs));
  }
  tree.root = node_at(source, "", 0);
  if (tree.root->kind == model::NodeKind::kArray) {
    // A store that is one array: named after the store (its last path component, less
    // .zarr), the name a conversion to a format of groups gives it.
    std::string name = store->name();
    name = name.substr(name.rfind('/') + 1);
    if (name.size() > 5 && name.substr(name.size() - 5) == ".zarr") name.resize(name.size() - 5);
    tree.root->name = name;
  }
  return tree;
}

model::Tree open_zarr(const std::string& path, const ZarrOpenOptions& options,
                      const OpenOptions& common) {
  io::StoreOptions store = common.store;
  for (io::HttpLimits* limits : {&store.http, &store.s3.limits}) {
    if (options.http_timeout) limits->request_seconds = *options.http_timeout;
    if (options.http_deadline) limits->total_seconds = *options.http_deadline;
  }
  // A directory here keeps to the rule for reading, with the folders allowed besides its
  // own (a chunk or member that is a symbolic link leading there is read).
  if (!io::is_url(path)) {
    const std::string dir = path.rfind("file://", 0) == 0 ? path.substr(7) : path;
    return open_zarr(io::open_directory_store(dir, common.allow_outside), options, common);
  }
  return open_zarr(io::open_store(path, store), options, common);
}

}  // namespace dudley::zarr
