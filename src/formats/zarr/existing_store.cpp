#include "existing_store.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <sys/stat.h>

#include "dudley/core/error.hpp"
#include "dudley/model/member_names.hpp"

namespace dudley::zarr {
namespace {

namespace fs = std::filesystem;

// The most of a node's document read to learn what it is: a member's holds its own
// metadata (kilobytes); the root's may hold every node's (consolidated: megabytes). A larger
// one makes no node, and its folder's keys count as not the store's (the safe side).
constexpr uint64_t kMaxDocumentBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxRootDocumentBytes = uint64_t{64} << 20;  // as the reader reads

bool is_metadata_name(std::string_view name) {
  return name == "zarr.json" || name == ".zarray" || name == ".zgroup" || name == ".zattrs" ||
         name == ".zmetadata";
}

// The folder of `key` ("" at the root) and its last part.
std::pair<std::string_view, std::string_view> split(std::string_view key) {
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return {{}, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// An array's chunk keys: how its metadata names them, and how many there are along each
// dimension. A key is the array's only when it names one of its chunks, as it names them.
struct ChunkKeys {
  bool v3_default = true;  ///< "c" then the indexes (v3's default encoding); else v2's
  char separator = '/';
  std::vector<uint64_t> grid;  ///< chunks along each dimension

  // Whether `rest` (the key below the array's folder) names one of the chunks.
  bool names_a_chunk(std::string_view rest) const {
    if (v3_default) {
      if (rest == "c") return grid.empty();
      if (rest.size() < 2 || rest[0] != 'c' || rest[1] != separator) return false;
      rest.remove_prefix(2);
    } else if (grid.empty()) {
      return rest == "0";
    }
    for (size_t d = 0; d < grid.size(); ++d) {
      const size_t end = d + 1 == grid.size() ? rest.size() : rest.find(separator);
      if (end == std::string_view::npos || end == 0) return false;
      uint64_t index = 0;
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + end, index);
      if (ec != std::errc() || ptr != rest.data() + end || index >= grid[d]) return false;
      // No leading zeros: "01" is no chunk's key.
      if (end > 1 && rest[0] == '0') return false;
      rest.remove_prefix(end == rest.size() ? end : end + 1);
    }
    return rest.empty();
  }
};

// Chunks of `extent` elements along a dimension of `size`: none of a dimension of 0.
std::optional<uint64_t> chunks_along(const nlohmann::json& size, const nlohmann::json& chunk) {
  if (!size.is_number_unsigned() || !chunk.is_number_unsigned()) return std::nullopt;
  const auto n = size.get<uint64_t>(), c = chunk.get<uint64_t>();
  if (c == 0) return std::nullopt;
  return n / c + (n % c != 0 ? 1 : 0);
}

// The chunk keys an array's metadata document states; nullopt when it is not one a store
// of ours holds (then the folder's keys are not the store's).
std::optional<ChunkKeys> chunk_keys(const nlohmann::json& doc, bool v2) {
  ChunkKeys keys;
  const nlohmann::json* shape = doc.contains("shape") ? &doc["shape"] : nullptr;
  const nlohmann::json* chunks = nullptr;
  if (v2) {
    keys.v3_default = false;
    keys.separator = '.';
    if (doc.contains("chunks")) chunks = &doc["chunks"];
    if (doc.contains("dimension_separator")) {
      const auto& sep = doc["dimension_separator"];
      if (!sep.is_string() || (sep != "." && sep != "/")) return std::nullopt;
      keys.separator = sep.get<std::string>()[0];
    }
  } else {
    const auto grid = doc.find("chunk_grid");
    if (grid != doc.end() && grid->is_object() && grid->contains("configuration") &&
        (*grid)["configuration"].is_object() && (*grid)["configuration"].contains("chunk_shape"))
      chunks = &(*grid)["configuration"]["chunk_shape"];
    const auto encoding = doc.find("chunk_key_encoding");
    if (encoding != doc.end() && encoding->is_object()) {
      const std::string name = encoding->value("name", "default");
      if (name == "v2") {
        keys.v3_default = false;
        keys.separator = '.';
      } else if (name != "default") {
        return std::nullopt;
      }
      if (encoding->contains("configuration") && (*encoding)["configuration"].is_object()) {
        const std::string sep = (*encoding)["configuration"].value("separator", "");
        if (!sep.empty()) {
          if (sep != "." && sep != "/") return std::nullopt;
          keys.separator = sep[0];
        }
      }
    }
  }
  if (!shape || !chunks || !shape->is_array() || !chunks->is_array() ||
      shape->size() != chunks->size())
    return std::nullopt;
  for (size_t d = 0; d < shape->size(); ++d) {
    const std::optional<uint64_t> n = chunks_along((*shape)[d], (*chunks)[d]);
    if (!n) return std::nullopt;
    keys.grid.push_back(*n);
  }
  return keys;
}

class Sorter {
 public:
  Sorter(const io::Store& store, std::string prefix) : store_(store), prefix_(std::move(prefix)) {}

  // Whether `dir` and every folder above it up to the root is a node.
  bool node_folder(std::string_view dir) { return reachable(dir); }

  ExistingStore sort(const std::vector<std::string>& keys) {
    read_nodes(keys);
    ExistingStore out;
    for (const std::string& key : keys) {
      const auto [dir, name] = split(key);
      if (is_metadata_name(name) && reachable(dir)) {
        out.metadata.push_back(key);
      } else if (in_array(key)) {
        out.chunks.push_back(key);
      } else {
        out.foreign.push_back(key);
      }
    }
    return out;
  }

 private:
  struct Node {
    std::optional<ChunkKeys> array;  ///< an array's chunk keys; none for a group
    int reachable = -1;              ///< unknown, 0 or 1
  };

  // The folders holding a node's document (zarr.json, .zgroup, .zarray) that reads as one:
  // a JSON object of Zarr's format 3 (a group or an array) or 2. A file merely named so (a
  // user's zarr.json of settings) makes no node. The documents are read in one batch.
  void read_nodes(const std::vector<std::string>& keys) {
    std::vector<std::string> documents;
    for (const std::string& key : keys) {
      const std::string_view name = split(key).second;
      if (name == "zarr.json" || name == ".zgroup" || name == ".zarray") documents.push_back(key);
    }
    std::vector<std::string> conflicted;
    // In batches: a store of 100,000 arrays has as many documents, which are not all held
    // (64 of at most 1 MiB each: 64 MiB at most at once, but for the root's).
    constexpr size_t kBatch = 64;
    for (size_t at = 0; at < documents.size(); at += kBatch) {
      const size_t end = std::min(documents.size(), at + kBatch);
      std::vector<Bytes> texts(end - at);
      std::vector<io::RangeRequest> requests;
      for (size_t i = at; i < end; ++i) {
        const bool root = split(documents[i]).first.empty();
        requests.push_back({(prefix_.empty() ? "" : prefix_ + "/") + documents[i], 0,
                            root ? kMaxRootDocumentBytes : kMaxDocumentBytes, true, &texts[i - at],
                            true});
      }
      try {
        store_.read_many(requests);
      } catch (const Error&) {
        // A document that cannot be read (too large, a link the rule refuses): each is
        // read alone, and one that fails makes no node.
        for (io::RangeRequest& r : requests) {
          try {
            store_.read_many(std::span(&r, 1));
          } catch (const Error&) {
            r.out->clear();
            r.found = false;
          }
        }
      }
      for (size_t i = at; i < end; ++i) {
        if (!requests[i - at].found) continue;
        add_node(documents[i], texts[i - at], conflicted);
      }
    }
    // A folder with both a group's and an array's document is no node of ours.
    for (const std::string& dir : conflicted) nodes_.erase(dir);
  }

  // The node the document `key` (of bytes `text`) makes, if it reads as one.
  void add_node(const std::string& key, const Bytes& text, std::vector<std::string>& conflicted) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(
          std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
    } catch (const std::exception&) {
      return;
    }
    if (!doc.is_object()) return;
    const auto [dir, name] = split(key);
    const nlohmann::json format = doc.value("zarr_format", nlohmann::json());
    Node node;
    if (name == "zarr.json") {
      const std::string type = doc.value("node_type", "");
      if (format != 3 || (type != "group" && type != "array")) return;
      if (type == "array") {
        node.array = chunk_keys(doc, false);
        if (!node.array) node.array = ChunkKeys{true, '/', {0}};  // no chunk is its key
      }
    } else {
      if (format != 2) return;
      if (name == ".zarray") {
        node.array = chunk_keys(doc, true);
        if (!node.array) node.array = ChunkKeys{false, '.', {0}};
      }
    }
    const bool array = node.array.has_value();
    auto [it, added] = nodes_.try_emplace(std::string(dir), std::move(node));
    if (!added && it->second.array.has_value() != array) conflicted.emplace_back(dir);
  }

  // Whether `dir` and every folder above it up to the root is a node.
  bool reachable(std::string_view dir) {
    auto it = nodes_.find(std::string(dir));
    if (it == nodes_.end()) return false;
    if (it->second.reachable < 0) {
      // Iterative: a key nests at most as deep as a store's keys go, and each node is
      // decided once.
      std::vector<std::string> chain{std::string(dir)};
      int verdict = 1;
      for (std::string_view d = dir; !d.empty();) {
        d = split(d).first;
        auto up = nodes_.find(std::string(d));
        if (up == nodes_.end() || up->second.array) {  // an array holds no node
          verdict = 0;
          break;
        }
        if (up->second.reachable >= 0) {
          verdict = up->second.reachable;
          break;
        }
        chain.emplace_back(d);
      }
      for (const std::string& d : chain) nodes_[d].reachable = verdict;
    }
    return it->second.reachable == 1;
  }

  // The nearest node above decides: an array whose chunk this may be (as its metadata
  // names its chunks), or a group, whose keys other than its metadata are not the store's.
  bool in_array(std::string_view key) {
    std::string_view dir = key;
    do {
      dir = split(dir).first;
      auto it = nodes_.find(std::string(dir));
      if (it != nodes_.end()) {
        const std::string_view rest = key.substr(dir.empty() ? 0 : dir.size() + 1);
        return it->second.array && reachable(dir) && it->second.array->names_a_chunk(rest);
      }
    } while (!dir.empty());
    return false;
  }

  const io::Store& store_;
  std::string prefix_;
  std::unordered_map<std::string, Node> nodes_;
};

}  // namespace

ExistingStore existing_store(const io::Store& store, const std::string& prefix) {
  std::vector<std::string> keys;
  store.for_each_key(prefix, [&](std::string_view key) { keys.emplace_back(key); });
  std::sort(keys.begin(), keys.end());
  return Sorter(store, prefix).sort(keys);
}

ExistingStore existing_directory(const std::string& path) {
  std::vector<std::string> keys, others, folders;
  std::error_code ec;
  const size_t lead = fs::path(path).native().size() + 1;
  fs::recursive_directory_iterator it(path, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    const std::string relative = it->path().native().substr(lead);
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_regular_file(st)) {
      keys.push_back(relative);
    } else if (fs::is_directory(st)) {
      folders.push_back(relative);
    } else {
      others.push_back(relative);  // a symbolic link, a FIFO, a socket, a device
    }
  }
  if (ec) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot list: {}", ec.message()),
                Location::file(path));
  }
  std::sort(keys.begin(), keys.end());
  const std::shared_ptr<io::Store> store = io::open_directory_store(path);
  Sorter sorter(*store, "");
  ExistingStore out = sorter.sort(keys);
  // A folder holding anything is named by what it holds. An empty one in a node's folder is
  // the store's (a writer made an array's folder and left the array out); another empty one
  // is the user's.
  std::unordered_set<std::string> used;
  for (const auto* list : {&out.metadata, &out.chunks, &out.foreign}) {
    for (const std::string& key : *list) {
      for (std::string_view d = split(key).first; !d.empty(); d = split(d).first) {
        if (!used.emplace(d).second) break;
      }
    }
  }
  for (const std::string& f : folders) {
    if (used.count(f)) continue;
    std::error_code empty_ec;
    if (!fs::is_empty(fs::path(path) / f, empty_ec) || empty_ec) continue;
    if (!sorter.node_folder(split(f).first)) out.foreign.push_back(f + "/");
  }
  out.foreign.insert(out.foreign.end(), others.begin(), others.end());
  std::sort(out.foreign.begin(), out.foreign.end());
  return out;
}

std::string first_foreign(const ExistingStore& existing) {
  constexpr size_t kShown = 5;
  std::string out;
  for (size_t i = 0; i < std::min(existing.foreign.size(), kShown); ++i) {
    if (i > 0)
      out += i + 1 == std::min(existing.foreign.size(), kShown) && existing.foreign.size() <= kShown
                 ? " and "
                 : ", ";
    out += model::quoted_name(existing.foreign[i]);
  }
  if (existing.foreign.size() > kShown)
    out += fmt::format(" and {} more", existing.foreign.size() - kShown);
  return out;
}

}  // namespace dudley::zarr
