// What `dump` is asked to print: item text ("/recs.pos[0, ::-1]") parsed and resolved against
// a tree into arrays, list items, groups and parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/core/hyperslab.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// An item as typed: a path, then struct fields and at most one numpy selection, in the
/// order given (`/r.pos[0]`, `/r[0].pos`).
struct ItemSpec {
  std::string path;     ///< quotes removed
  bool quoted = false;  ///< some name of the path was quoted
  std::vector<std::string> fields;
  std::string selection;         ///< "[...]" as given; "" for none
  bool selection_first = false;  ///< `/r[0].pos`: the selection is of the struct array
  /// The text after the path (".pos[0]"): the key of a selection in JSON output.
  std::string suffix() const;
};

/// An item's path, quotes removed (`/a/"run.ini"` is /a/run.ini), and where the rest (fields,
/// selection) starts in the text.
struct ItemPath {
  std::string path;
  bool quoted = false;
  size_t rest = 0;
};
/// The path part of item `text`: up to the first '.' or '[' outside quotes. Throws
/// Error(kUsage) for an unclosed quote.
ItemPath split_item_path(const std::string& text);

/// Splits `text` into its parts. Throws Error(kUsage) for a second selection, an empty
/// field name or text after the selection that is not a field.
ItemSpec parse_item(const std::string& text);

/// What an array needs for its values to be read later, when the node itself (an item
/// made on demand) is gone.
struct ArrayRef {
  std::string label;  ///< as printed: the path, with the item's fields and selection
  DType dtype;
  std::vector<int64_t> shape;
  std::shared_ptr<model::ArraySource> data;
  std::string error;   ///< why the array cannot be read (from the model)
  bool empty = false;  ///< no shape and no data (model::Node::empty)
  /// Elements to print as masked (ASDF masks); null when none.
  std::shared_ptr<const model::Masking> mask;
  ItemSpec spec;  ///< fields and selection to apply; the path is the array's

  static ArrayRef of(const model::Node& node, const std::string& path, ItemSpec spec = {});
};

/// Items of a list picked by a selection (`/L[2:10:2]`): start, start + step, ...
struct ListPick {
  int64_t start = 0, count = 0, step = 1;
  /// Whether list item `index` is picked.
  bool has(uint64_t index) const;
  /// One past the highest picked index (0 when none).
  uint64_t reach() const;
};

/// One resolved request.
struct Request {
  /// kValue: a value of the tree (an attribute, or a key or index inside one).
  enum class Kind { kArray, kBelow, kParameter, kValue };
  Kind kind = Kind::kArray;
  std::string label;
  std::string path;                   ///< of the array, group, list or parameter
  const model::Node* node = nullptr;  ///< kept alive by the tree (Tree::find)
  ItemSpec spec;                      ///< kArray: fields and selection
  std::optional<ListPick> pick;       ///< kBelow of a list: only these items
  const model::Parameter* parameter = nullptr;
  std::string value_text;  ///< kValue: the value as compact JSON
};

/// Resolves `items` against `tree` (every array when empty). Throws Error(kUsage) for an
/// item that names nothing (with the nearest names), a bad selection or field, a selection
/// of a group, and fields of anything but a struct array. `file` names the data in messages.
std::vector<Request> resolve_items(const model::Tree& tree, const std::vector<std::string>& items,
                                   const std::string& file);

/// The type of `fields` (a.b.c) inside struct `type`; their sub-array dimensions are
/// appended to `field_shape` when given. Throws Error(kUsage) naming a missing field (with
/// the nearest name) or a field of a type that is not a struct.
DType field_chain(const DType& type, const std::vector<std::string>& fields,
                  std::vector<int64_t>* field_shape);

/// Reads the values `ref` selects (fields and selection applied) into memory, in native
/// order. For arrays whose selection needs no field this is one read of the selection.
NDArray read_selected(const ArrayRef& ref);

/// The selection of a plain array item (no fields) against its shape: the whole array when
/// the item has none.
Hyperslab selection_of(const ArrayRef& ref);

}  // namespace dudley::cli
