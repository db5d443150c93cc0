// The Dudley format as the registry sees it: its options and its registration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/format.hpp"
#include "dudley/layout/bind/binder.hpp"

namespace dudley::layout {

/// Reading Dudley data: where the layout is, and what binding needs.
struct DudleyOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "dudley";
  /// The layout file; empty: NAME.dud beside data file NAME.EXT, or the layout embedded in
  /// the data file.
  std::string layout;
  /// Byte order of unprefixed types, parameter values, parameters absent from the file.
  BindOptions bind;
};

/// Writing Dudley data (format-neutral settings such as fsync are in SaveOptions).
struct DudleySaveOptions : FormatOptions {
  static constexpr const char* kFormat = "dudley";
  /// Order of '|' (unprefixed) multi-byte types and of the !DUDLEY signature.
  ByteOrder order = native_byte_order();
  /// Write NAME.dud beside the data file.
  bool write_layout = true;
  /// Append the layout to the data file with a trailer (one self-describing file).
  bool embed_layout = false;
  /// Write with this layout file (a family's template) instead of one made from the tree:
  /// each data item takes the tree's array at the same path; the arrays no item took are
  /// the report's `unused`.
  std::string to_layout;
};

/// When `path` is a family index (layout/family/family.hpp), its members in order with the
/// options reading each needs (the index's layout, the member's parameter values, whether
/// they are absent from the files), as `--family` gives them; nullopt for any other file.
/// Throws Error naming the index when it is broken.
std::optional<std::vector<FamilyMember>> family_index_members(const std::string& path);

/// Registers the Dudley format: reads any data file with a layout beside it, embedded in
/// it or given (--layout), and is the registry's fallback for names without an extension.
void register_dudley_format(FormatRegistry& registry);

}  // namespace dudley::layout
