// The JSON forms of the model that `ls --json` and `dump --json` print (docs/cli.md).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// The JSON text of `value` (indent < 0: one line). File names and text from files may hold
/// bytes that are not UTF-8: they are replaced by U+FFFD rather than failing.
std::string json_text(const nlohmann::ordered_json& value, int indent = -1);

/// "<f8", "|S1", ... or {"struct": NAME, "size": N, "fields": [...]} for compounds.
nlohmann::ordered_json dtype_json(const DType& type);

/// Adds keys to an array node's JSON (dump adds "data", "selections", "target"). `path` is
/// the array's path in the tree ("/g/x", list items by index).
using ArrayDecorator = std::function<void(const model::Node& array, const std::string& path,
                                          nlohmann::ordered_json& out)>;

/// How node_json walks a tree.
struct TreeWalk {
  ArrayDecorator decorate;  ///< called for each resolved array
  /// Items shown per list (0: all). A list with more says how many it left out
  /// ("omitted"): a layout of a few bytes can claim 2^60 instances.
  uint64_t max_items = 0;
  /// How many items of the list at `path` must be shown whatever max_items says
  /// (UINT64_MAX: all of them); unset: none.
  std::function<uint64_t(const std::string& path)> reach;
  /// Checked before each item: true ends the walk (a budget was spent).
  std::function<bool()> stop;
  /// Whether the group member at `path` is shown at all; unset: every member. (dump with
  /// items shows only the groups on the way to them and what they hold: a family member's
  /// line then holds the arrays asked for, not a listing of the whole file.) List items are
  /// always shown, up to max_items and reach, to keep their positions.
  std::function<bool(const std::string& path)> include;
  /// Called for each array that could not be located (its `error` is set).
  std::function<void(const model::Node& array, const std::string& path)> unresolved;
  /// Called for each attribute its reader could not read (Node::unreadable_attributes),
  /// with the error's text ("FILE: error: PATH: attribute 'NAME': WHY").
  std::function<void(const std::string& text)> unreadable_attribute;
};

/// "link" of an item that is a link: {"kind", "target", "file", "end", "listed_at"}.
nlohmann::ordered_json link_json(const model::Link& link);

/// {NAME: error text} of the attributes of `node` (at `path`) its reader could not read
/// ("" for all of them, when they could not be listed); each text also goes to
/// walk.unreadable_attribute.
nlohmann::ordered_json attribute_errors_json(const model::Node& node, const TreeWalk& walk,
                                             const std::string& path);

/// The error text of an attribute of the item at `path` that could not be read.
std::string unreadable_attribute_text(const std::string& path, const std::string& name,
                                      const model::NodeError& error);

/// A node at `path` and its descendants in the ls form. Items made on demand are built and
/// dropped one at a time.
nlohmann::ordered_json node_json(const model::Node& node, const TreeWalk& walk,
                                 const std::string& path = "/");
/// The same, every item shown, `decorate` called for each resolved array.
nlohmann::ordered_json node_json(const model::Node& node, const ArrayDecorator& decorate = {},
                                 const std::string& path = "/");

/// A group's parameters as `ls --json` shows them: {NAME: {"value", "dtype", "address",
/// "doc", "error"}}, a name declared again showing its last declaration with
/// "declarations" listing all of them.
nlohmann::ordered_json params_json(const model::Node& group);

/// One parameter's entry as params_json gives it: value, dtype, address, doc, error.
nlohmann::ordered_json parameter_json(const model::Parameter& parameter);

/// The path of child `name` (a member) or `index` (a list item) below `parent`.
std::string child_path(const model::Node& parent, const std::string& parent_path,
                       const model::Node& child, uint64_t index);

/// How many JSON values (numbers, strings, nested lists) printing an array of `shape` makes,
/// saturating at UINT64_MAX: the product of its dimensions down to the first 0 (a text
/// array's last dimension is its strings). `S1[10^9, 10^5, 0]` holds no bytes and prints
/// 10^14 empty lists.
uint64_t printed_values(const DType& type, const std::vector<int64_t>& shape);

/// Values printed without bytes in the file to back them are capped: values_json refuses an
/// array that holds no bytes and would print more than this many values.
inline constexpr uint64_t kMaxUnbackedValues = uint64_t{1} << 20;

/// Array values as nested lists in C order: floats as the shortest text that round-trips
/// in their own precision, NaN and infinities as strings, complex as [re, im], text with its
/// last dimension as a string, structs as objects. Throws Error(kLimit) past
/// kMaxUnbackedValues (see printed_values).
nlohmann::ordered_json values_json(const NDArray& array);

/// One element of `type` at `p` (native order) as values_json prints it.
nlohmann::ordered_json element_json(const DType& type, const unsigned char* p);

/// Throws the Error(kLimit) values_json would for an array of `type` and `shape` (named
/// `what` in the message), before it is read.
void check_printable(const DType& type, const std::vector<int64_t>& shape, const std::string& what);

}  // namespace dudley::cli
