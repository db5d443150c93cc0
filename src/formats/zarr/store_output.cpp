#include "store_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "chunk_files.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/atomic_outputs.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::zarr {
namespace {

namespace fs = std::filesystem;

class DirectoryOutput final : public StoreOutput {
 public:
  explicit DirectoryOutput(const std::string& path) : directory_(path) {}

  std::string where(const std::string& key) const override {
    return key.empty() ? directory_.path() : directory_.path() + "/" + key;
  }
  void begin_node(const std::string& prefix) override {
    fs::create_directories(prefix.empty() ? fs::path(directory_.staging())
                                          : fs::path(directory_.staging()) / prefix);
  }
  void write_chunks(std::span<const EncodedChunk> chunks) override {
    for (const EncodedChunk& c : chunks) {
      named_as_given(c.key, [&] { write_chunk(staged(c.key), *c.bytes); });
    }
  }
  void write_metadata(const std::string& key, const std::string& text) override {
    named_as_given(key, [&] {
      const std::string path = staged(key);
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);  // write_file names what fails
      write_file(path, text.data(), text.size());
    });
  }
  void commit(bool fsync) override {
    // The old store is swapped out whole and removed: looked at again just before, so that
    // a file the user put into it while this one was written is not taken with it.
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(directory_.path(), ec))) {
      const ExistingStore now = existing_directory(directory_.path());
      if (!now.foreign.empty()) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("now holds {} that {} no part of a Zarr store ({}), put there "
                                "while the new store was written: not replaced (give "
                                "--overwrite to write the store among them)",
                                now.foreign.size() == 1 ? "an entry" : "entries",
                                now.foreign.size() == 1 ? "is" : "are", first_foreign(now)),
                    Location::file(directory_.path()));
      }
    }
    directory_.commit(fsync);
  }

 private:
  std::string staged(const std::string& key) const { return directory_.staging() + "/" + key; }

  // Runs `write`; its failure names the key where the user will find it, not the staging
  // directory's hidden name.
  template <typename F>
  void named_as_given(const std::string& key, F&& write) const {
    try {
      write();
    } catch (const Error& e) {
      throw Error(e.category(), e.message(), Location::file(where(key)));
    }
  }

  io::AtomicDirectory directory_;
};

// Where a metadata document goes in the writing order: deeper ones first (an array before
// the group holding it); at one depth attributes before the document that makes the node
// appear, and the consolidated metadata last of all.
std::tuple<int, int> metadata_rank(const std::string& key) {
  const auto depth = static_cast<int>(std::count(key.begin(), key.end(), '/'));
  const std::string name = fs::path(key).filename().string();
  const int order = name == ".zattrs" ? 0 : name == ".zmetadata" ? 2 : 1;
  return {-depth, order};
}

class KeyValueOutput final : public StoreOutput {
 public:
  KeyValueOutput(io::Store& store, std::string name, std::string url, ExistingStore existing)
      : store_(store), name_(std::move(name)), url_(std::move(url)) {
    for (const std::string& key : existing.metadata) old_metadata_.push_back(full(key));
    old_values_.insert(existing.chunks.begin(), existing.chunks.end());
    foreign_.insert(existing.foreign.begin(), existing.foreign.end());
    // Among other files (a directory of the user's), a key that was no value of the old
    // store when the write began is looked at again just before it is written (a local
    // look: a stat), so that a file the user made meanwhile is not replaced.
    watch_new_keys_ = !foreign_.empty() && !store_.remote();
    if (watch_new_keys_) {
      old_keys_.insert(existing.metadata.begin(), existing.metadata.end());
      old_keys_.insert(existing.chunks.begin(), existing.chunks.end());
    }
  }
  ~KeyValueOutput() override {
    if (committed_) return;
    try {  // best effort: the write's own error is the one reported
      store_.erase_many(written_);
    } catch (...) {
    }
  }
  KeyValueOutput(const KeyValueOutput&) = delete;
  KeyValueOutput& operator=(const KeyValueOutput&) = delete;

  std::string where(const std::string& key) const override {
    return key.empty() ? url_ : url_ + "/" + key;
  }
  void write_chunks(std::span<const EncodedChunk> chunks) override {
    for (const EncodedChunk& c : chunks) keep_foreign(c.key);
    remove_old_metadata();
    std::vector<io::WriteRequest> requests;
    requests.reserve(chunks.size());
    for (const EncodedChunk& c : chunks) {
      // Counted before the write: a failed batch may have written some of its values.
      written_.push_back(full(c.key));
      if (watch_new_keys_) written_keys_.insert(c.key);
      old_values_.erase(c.key);
      requests.push_back(
          {written_.back(), io::memory_source(c.bytes->data(), c.bytes->size(), where(c.key))});
    }
    store_.write_many(requests);
  }
  void write_metadata(const std::string& key, const std::string& text) override {
    keep_foreign(key);
    metadata_.emplace_back(key, text);
  }
  void commit(bool /*fsync: a store's write is durable when it answers*/) override {
    remove_old_metadata();
    std::vector<std::string> stale;
    stale.reserve(old_values_.size());
    for (const std::string& key : old_values_) stale.push_back(full(key));
    store_.erase_many(stale);
    std::stable_sort(metadata_.begin(), metadata_.end(), [](const auto& a, const auto& b) {
      return metadata_rank(a.first) < metadata_rank(b.first);
    });
    // One batch per rank: the documents of a rank go up together, after the rank before.
    for (size_t at = 0; at < metadata_.size();) {
      size_t end = at;
      std::vector<io::WriteRequest> batch;
      while (end < metadata_.size() &&
             metadata_rank(metadata_[end].first) == metadata_rank(metadata_[at].first)) {
        const auto& [key, text] = metadata_[end++];
        written_.push_back(full(key));
        batch.push_back({written_.back(), io::memory_source(text.data(), text.size(), where(key))});
      }
      store_.write_many(batch);
      at = end;
    }
    committed_ = true;
  }

 private:
  std::string full(const std::string& key) const { return name_.empty() ? key : name_ + "/" + key; }

  // A key of the new store that is something else's (a user's file where a chunk would
  // go), or that lies below something else's (a symbolic link to a folder elsewhere, a
  // user's file where a folder would go): refused, before anything of this batch is
  // written.
  void keep_foreign(const std::string& key) const {
    if (foreign_.empty()) return;
    std::string_view at = key;
    for (;;) {
      if (foreign_.count(std::string(at)) ||
          (at.size() < key.size() && foreign_.count(std::string(at) + "/"))) {
        throw Error(
            ErrorCategory::kUsage,
            fmt::format("{} no part of the Zarr store written here, and the new store "
                        "would write {}: choose another destination",
                        at.size() == key.size() ? "is" : fmt::format("lies below {}, which is", at),
                        at.size() == key.size() ? "over it" : "through it"),
            Location::file(where(key)));
      }
      const size_t slash = at.rfind('/');
      if (slash == std::string_view::npos) break;
      at = at.substr(0, slash);
    }
    if (watch_new_keys_ && !old_keys_.count(key) && !written_keys_.count(key) &&
        store_.size(full(key)).has_value()) {
      throw Error(ErrorCategory::kUsage,
                  "appeared while the store was written, and is no part of it: not replaced; "
                  "choose another destination",
                  Location::file(where(key)));
    }
  }

  // Before the first value of the new store: a reader then finds no store while it is
  // written, rather than old metadata over new chunks.
  void remove_old_metadata() {
    if (old_metadata_removed_) return;
    store_.erase_many(old_metadata_);
    old_metadata_removed_ = true;
  }

  io::Store& store_;
  std::string name_, url_;
  std::vector<std::string> old_metadata_;
  std::unordered_set<std::string> old_values_;    ///< old chunks not written over yet
  std::unordered_set<std::string> foreign_;       ///< keys no part of the old store: kept
  bool watch_new_keys_ = false;                   ///< written among other files, locally
  std::unordered_set<std::string> old_keys_;      ///< the old store's keys (when watched)
  std::unordered_set<std::string> written_keys_;  ///< the new store's keys so far (watched)
  bool old_metadata_removed_ = false;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::vector<std::string> written_;  ///< full keys, removed again unless committed
  bool committed_ = false;
};

}  // namespace

std::unique_ptr<StoreOutput> directory_output(const std::string& path) {
  return std::make_unique<DirectoryOutput>(path);
}

std::unique_ptr<StoreOutput> key_value_output(io::Store& store, const std::string& name,
                                              const std::string& url, ExistingStore existing) {
  return std::make_unique<KeyValueOutput>(store, name, url, std::move(existing));
}

}  // namespace dudley::zarr
