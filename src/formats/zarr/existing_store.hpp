// What is already at a Zarr output's destination, key by key: the keys of a Zarr store
// rooted there, which a new store may replace and remove, and everything else (a user's
// files, another store in a folder below), which a save never touches. The rule that a save
// deletes only what its format wrote rests on this sorting.
#pragma once

#include <string>
#include <vector>

#include "dudley/io/store.hpp"

namespace dudley::zarr {

/// The keys found under a destination, relative to it, sorted into the store's and the rest.
struct ExistingStore {
  std::vector<std::string> metadata;  ///< the store's metadata documents (zarr.json, .zarray)
  std::vector<std::string> chunks;    ///< the store's arrays' chunks
  /// Everything else: keys, and in a directory also entries that are no regular file (a
  /// folder holding nothing, "sub/"; a symbolic link; a FIFO).
  std::vector<std::string> foreign;

  /// Whether nothing is there.
  bool empty() const { return metadata.empty() && chunks.empty() && foreign.empty(); }
};

/// The keys under `prefix` of `store` ("" for its root), sorted. A key is the store's when
/// every folder from `prefix` down to it is a node (holds zarr.json, .zgroup or .zarray),
/// and it is a metadata document of its node or a chunk key of an array node ("c/0/1",
/// "c.0.1", "0.1", "0/1", "c", "0"). Error(kIo) when the store cannot list.
ExistingStore existing_store(const io::Store& store, const std::string& prefix);

/// The same for the local directory `path` (which exists), where entries that are no
/// regular file are foreign too.
ExistingStore existing_directory(const std::string& path);

/// "a, b/c, d and 12 more": the first few foreign entries, for a message.
std::string first_foreign(const ExistingStore& existing);

}  // namespace dudley::zarr
