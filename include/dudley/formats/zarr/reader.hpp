// Reading a Zarr v3 store into the model: its groups and arrays, with attributes, dimension
// names, the chunk grid and codecs as storage, and lazy data sources.
#pragma once

#include <memory>
#include <string>

#include "dudley/formats/zarr/metadata.hpp"
#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::zarr {

/// The largest metadata document read (a zarr.json of more is refused, Error(kLimit)).
inline constexpr uint64_t kMaxMetadataBytes = uint64_t{64} << 20;

/// The metadata of the node at `prefix` ("" for the root, else "a/b") of `store`: its
/// zarr.json, or v2 .zarray/.zgroup with .zattrs. Throws Error naming the document when it is
/// malformed or larger than kMaxMetadataBytes, or Error(kData) when the node has neither.
NodeMetadata read_node_metadata(const io::Store& store, const std::string& prefix);

/// The tree of the store: its root node (a group or an array) and every node under it that
/// has its own metadata (implicit groups, directories without zarr.json, are skipped). A node
/// whose metadata cannot be read, or whose data this build cannot read, is kept with its
/// `error` set, so the rest of the store still lists. Throws Error naming the root's
/// zarr.json when the root itself cannot be read.
model::Tree read_zarr(const std::shared_ptr<const io::Store>& store);

/// read_zarr() of the directory store at `path`, or of the store on a web server when `path`
/// is an http:// or https:// URL (its requests within `http`).
model::Tree open_zarr(const std::string& path,
                      const io::HttpLimits& http = io::HttpLimits::from_environment());

}  // namespace dudley::zarr
