// The common array of a listing printed without building its JSON (ls --json of 10^5
// arrays spent most of its printing time building and dropping them).
#pragma once

#include "cli/value_text.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// Writes array `node` as `write_json_at(out, node_json(node, TreeWalk{}, path), indent,
/// level)` would, without building its JSON, when there is nothing about it but its type,
/// shape and contiguous (or unknown) storage: no link, error, attributes, doc, mask, extents
/// or compound type. Returns false, having written nothing, for any other node. A listing
/// of 10^5 arrays spent most of its printing time building and dropping their JSON.
bool write_plain_array_json(Output& out, const model::Node& node, int indent, int level);

}  // namespace dudley::cli
