// `ls --json` printed as it is walked: each array's JSON is built, printed and dropped in
// turn, so a tree of 10^5 arrays never exists as one JSON document in memory.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/json_stream.hpp"
#include "cli/tree_json.hpp"
#include "cli/value_text.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// Called with each piece of the listing that may hold "error" members (an array's JSON, or
/// {"params": ...} of a group), before its error texts are cleaned for printing, and the
/// path of the node it belongs to ("" for the root, "/g", "pointee 3"): in tree order, the
/// parameters of a group before its members.
using ListingInspector =
    std::function<void(const nlohmann::ordered_json& piece, const std::string& path)>;

/// Writes `node` and its descendants in the form node_json() gives them, as
/// `json_text(node_json(...), indent)` would print it `level` levels deep. `path` is the
/// node's path ("/" for the root); lists show at most `max_items` items (0: all).
void write_listing_json(Output& out, const model::Node& node, const std::string& path,
                        uint64_t max_items, int indent, int level, const ListingInspector& inspect);

/// The same, walked as `walk` says (items shown, lists reached, where to stop, arrays
/// decorated as node_json does), each stream marker a decoration puts replaced by what
/// `stream` writes: dump --json, printed as it is read.
void write_listing_json(Output& out, const model::Node& node, const std::string& path,
                        const TreeWalk& walk, int indent, int level,
                        const ListingInspector& inspect, const StreamValue& stream);

}  // namespace dudley::cli
