// The tree as the viewer's page gets it: in bounded pieces. A file of 600,000 members would
// otherwise be one JSON answer of 83 MiB that the server builds whole (1.4 GiB resident)
// and the browser parses whole. The page gets a first view of the tree (at most
// kFirstViewNodes nodes, kPageMembers members a group), each group saying how many members
// it has ("members_count"), then the rest of a group a page at a time, and searches by name
// on the server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dudley/model/tree.hpp"

namespace dudley::view {

/// The most nodes the first view of the tree holds.
inline constexpr uint64_t kFirstViewNodes = 20000;
/// The deepest level the first view lists members at (deeper groups: by /api/members).
inline constexpr size_t kFirstViewDepth = 64;
/// The most members of one group (items of one list) an answer lists.
inline constexpr uint64_t kPageMembers = 1000;
/// The most matches a search answers with.
inline constexpr uint64_t kSearchMatches = 500;
/// The most nodes a search looks at (its time stays bounded on any tree).
inline constexpr uint64_t kSearchNodes = 5000000;

/// The path of member `name` of the item at `parent` as items are written (dump's syntax):
/// a name holding '.', '[', ']', '"' or '\' quoted, with '"' and '\' escaped.
std::string member_path(const std::string& parent, const std::string& name);

/// The first view of the tree: its nodes in the `ls --json` form, depth first, up to
/// kFirstViewNodes; each group with "members_count", its members listed up to kPageMembers
/// (none once the budget is spent), each list's items up to kPageMembers ("omitted" says how
/// many more).
nlohmann::ordered_json first_view(const model::Node& root);

/// Members [start, start + kPageMembers) of the group `group` at `path`: {"path",
/// "start", "members_count", "members"}; a member group listed with its "members_count"
/// and no members of its own.
nlohmann::ordered_json members_page(const model::Node& group, const std::string& path,
                                    uint64_t start);

/// The items whose names hold `text` (case-insensitive), depth first: {"matches": [{"path",
/// "kind"}], "complete"}: complete is false when kSearchMatches were found or kSearchNodes
/// looked at before the walk ended (lists: their first kPageMembers items).
nlohmann::ordered_json search(const model::Node& root, const std::string& text);

}  // namespace dudley::view
