// Reading one node's metadata of a store (v3 zarr.json, or v2 .zarray/.zgroup and .zattrs).
#pragma once

#include <memory>
#include <string>

#include "dudley/formats/zarr.hpp"
#include "dudley/io/store.hpp"
#include "dudley/model/tree.hpp"
#include "metadata.hpp"

namespace dudley::zarr {

/// The largest metadata document read (a zarr.json of more is refused, Error(kLimit)).
inline constexpr uint64_t kMaxMetadataBytes = uint64_t{64} << 20;

/// The metadata of the node at `prefix` ("" for the root, else "a/b") of `store`: its
/// zarr.json, or v2 .zarray/.zgroup with .zattrs. Throws Error naming the document when it is
/// malformed or larger than kMaxMetadataBytes, or Error(kData) when the node has neither.
NodeMetadata read_node_metadata(const io::Store& store, const std::string& prefix);

}  // namespace dudley::zarr
