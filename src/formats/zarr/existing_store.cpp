#include "existing_store.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <sys/stat.h>

#include "dudley/core/error.hpp"
#include "dudley/model/member_names.hpp"

namespace dudley::zarr {
namespace {

namespace fs = std::filesystem;

// The most a node's zarr.json is read to learn whether it is an array.
constexpr uint64_t kMaxDocumentBytes = uint64_t{16} << 20;

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

bool digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A chunk key below its array's folder: v3's default encoding ("c", "c/0/1", "c.0.1") or
// v2's ("0", "0.1", "0/1").
bool is_chunk_key(std::string_view rest) {
  if (rest == "c") return true;
  if (rest.size() > 2 && rest[0] == 'c' && (rest[1] == '/' || rest[1] == '.'))
    rest.remove_prefix(2);
  for (;;) {
    const size_t sep = rest.find_first_of("./");
    if (!digits(rest.substr(0, sep))) return false;
    if (sep == std::string_view::npos) return true;
    rest.remove_prefix(sep + 1);
  }
}

class Sorter {
 public:
  Sorter(const io::Store& store, std::string prefix) : store_(store), prefix_(std::move(prefix)) {}

  // Whether `dir` and every folder above it up to the root is a node.
  bool node_folder(std::string_view dir) { return reachable(dir); }

  ExistingStore sort(const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      const auto [dir, name] = split(key);
      if (name == "zarr.json" || name == ".zgroup" || name == ".zarray")
        nodes_.emplace(std::string(dir), Node{name == ".zarray", name == "zarr.json"});
    }
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
    bool array = false;
    bool v3 = false;     ///< its zarr.json says whether it is an array (read when asked)
    bool read = false;   ///< v3 node type read
    int reachable = -1;  ///< unknown, 0 or 1
  };

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
        if (up == nodes_.end()) {
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

  // Whether the node `dir` is an array (v3: its zarr.json says "node_type": "array").
  bool is_array(const std::string& dir) {
    Node& n = nodes_[dir];
    if (n.v3 && !n.read) {
      n.read = true;
      const std::string key =
          (prefix_.empty() ? "" : prefix_ + "/") + (dir.empty() ? "zarr.json" : dir + "/zarr.json");
      try {
        if (const std::optional<Bytes> text = store_.get(key, kMaxDocumentBytes)) {
          const auto doc = nlohmann::json::parse(
              std::string_view(reinterpret_cast<const char*>(text->data()), text->size()));
          n.array = doc.is_object() && doc.value("node_type", "") == "array";
        }
      } catch (const std::exception&) {
        n.array = false;  // not a document a store of ours has: its folder's keys are not ours
      }
    }
    return n.array;
  }

  // Whether `key` is a chunk key of an array node above it, reachable from the root.
  // The nearest node above decides: an array whose chunk this may be, or a group, whose
  // keys other than its metadata are not the store's.
  bool in_array(std::string_view key) {
    std::string_view dir = key;
    do {
      dir = split(dir).first;
      const std::string d(dir);
      if (nodes_.count(d)) {
        const std::string_view rest = key.substr(dir.empty() ? 0 : dir.size() + 1);
        return is_array(d) && reachable(dir) && is_chunk_key(rest);
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
