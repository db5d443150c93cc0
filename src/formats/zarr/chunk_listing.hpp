// The chunks a Zarr array's store holds, listed once: what ArraySource::stored_chunks()
// answers (so that dump and the writers follow the stored chunks, not the grid), and the
// keys themselves, so that reads then skip missing chunks without asking the store for each.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"
#include "metadata.hpp"

namespace dudley::zarr {

/// One array's listing of its stored chunks; safe to use from several threads.
class ChunkListing {
 public:
  /// The keys under `prefix` of `store` that name chunks (shards, for a sharded array) of
  /// the grid of `meta`, as StoredChunks (positions in C order, the fill value's bytes);
  /// listed on the first call and kept. std::nullopt when the store cannot list (HTTP).
  std::optional<model::StoredChunks> list(const io::Store& store, const std::string& prefix,
                                          const ArrayMetadata& meta);

  /// Whether the chunk at `relative_key` (relative to the array) is known to be missing:
  /// true only once list() has listed and the key was not among the chunks found.
  bool known_missing(const std::string& relative_key) const;

 private:
  mutable std::mutex mutex_;
  std::optional<model::StoredChunks> listed_;
  std::shared_ptr<const std::unordered_set<std::string>> keys_;
};

}  // namespace dudley::zarr
