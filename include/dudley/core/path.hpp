// Item paths ("/g/sub/x", list items by index "/L/2"), shared by every tree that is
// navigated by path.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dudley {

/// The components of a path; empty components (leading, doubled or trailing '/') are
/// skipped, so "/g//x/" and "g/x" both give {"g", "x"}.
std::vector<std::string_view> split_path(std::string_view path);

/// A list index component ("2"); nullopt when the text is not a plain decimal number.
std::optional<size_t> path_index(std::string_view component);

/// The path of member `name` of the group at `parent` ("/" + name at the root).
std::string join_path(std::string_view parent, std::string_view name);

/// The first segment of the '/'-separated `key` that a path resolves rather than names:
/// "." or ".." (a store's key "a/../../b" would leave the store); nullopt when none.
std::optional<std::string_view> climbing_segment(std::string_view key);

/// Whether `key` names a file below a folder: '/'-separated parts, none empty, "." or
/// "..", and no NUL (a directory store's keys).
bool is_plain_key(std::string_view key);

/// Whether `path` leads to `wanted` (an ancestor of it), is it, or lies below it ("/"
/// relates to every path).
bool related_paths(std::string_view path, std::string_view wanted);

}  // namespace dudley
