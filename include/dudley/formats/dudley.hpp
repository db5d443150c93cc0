// Dudley data: a binary file described by a layout (NAME.dud beside it, one shared by a
// family, one given, or embedded after the data), read through the layout language
// (dudley/layout/) and written with a layout made from the tree or given.
//
// The public face of the format, shaped as every format's is (docs/development.md):
// DudleyOpenOptions, DudleySaveOptions, open_dudley, write_dudley and
// register_dudley_format, plus the members of a family index.
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

/// The data file at `path` read with its layout (`options.layout`, else NAME.dud beside
/// NAME.EXT, else a family's STEM.dud beside STEM_NNNN.EXT, else the layout embedded at the
/// end of the data), bound with `options.bind`. With `common.wanted` paths, group members
/// that lead to none of them and lie below none are left out of the tree (and not bound).
/// Throws Error(kIo / kSyntax / kSemantic) naming the file that failed; an item that cannot
/// be resolved keeps its error in the tree instead.
model::Tree open_dudley(const std::string& path, const DudleyOpenOptions& options = {},
                        const OpenOptions& common = {});

/// Writes `tree` as the data file `destination` with a layout made from the tree (beside it
/// as NAME.dud, or embedded), or with `options.to_layout`, whose items take the tree's
/// arrays of the same paths (the arrays none took are the report's `unused`, and a note).
/// Returns the files written (the data, then the layout). Throws Error(kType) for what a
/// layout cannot state and LossError for what the file has no place for unless
/// `common.lossy`; nothing is then left at `destination`.
SaveReport write_dudley(const model::Tree& tree, const std::string& destination,
                        const DudleySaveOptions& options = {}, const SaveOptions& common = {});

/// One member of a family index and the options reading it needs: the index's layout, the
/// member's parameter values, whether they are absent from the files.
struct DudleyFamilyMember {
  std::string path;
  DudleyOpenOptions options;
};

/// When `path` is a family index (layout/family/family.hpp), its members in order; nullopt
/// for any other file. Throws Error naming the index when it is broken, or when it names a
/// member or layout outside its folder and the folders `allow_outside` (read_family_index).
std::optional<std::vector<DudleyFamilyMember>> family_index_members(
    const std::string& path, const std::vector<std::string>& allow_outside = {});

/// Registers the Dudley format: reads any data file with a layout beside it, embedded in
/// it or given (--layout), and is the registry's fallback for names without an extension.
void register_dudley_format(FormatRegistry& registry);

}  // namespace dudley::layout
