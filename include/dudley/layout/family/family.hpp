// File families: many data files of one !TEMPLATE layout that differ only in parameter
// values, and their index, a parameter stream holding every member's parameters [C22, C23].
//
// On disk, for stem "out/run":
//   out/run.dud                    the family's layout (shared by every member)
//   out/run_0000.bin, _0001, ...   the members
//   out/run.index.bin + .dud       the index: a Dudley file itself (docs/families.md)
// With the index a reader computes every address of every member without opening it; with
// `params_in_files` false the members do not even hold their parameters (they are then
// readable only through the index).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/write/writer.hpp"

namespace dudley::layout {

struct FamilyOptions {
  WriteOptions write;           ///< order, fsync, progress of each member
  bool params_in_files = true;  ///< false: parameters only in the index [C23]
};

class FamilyWriter {
 public:
  /// Starts a family of `layout` (which must outlive the writer) under `stem`, a path
  /// without extension. Throws Error when the layout cannot be written (see Writer).
  FamilyWriter(const Layout& layout, std::string stem, FamilyOptions options = {});

  /// A writer for the next member, STEM_NNNN.bin: give it arrays (and parameters), then
  /// commit() it. The reference stays valid until finish().
  Writer& add();

  /// Writes the family's layout and its index (every committed member's parameters).
  /// Returns the index's data path.
  std::string finish();

 private:
  const Layout& layout_;
  std::string stem_;
  FamilyOptions options_;
  std::vector<std::string> files_;
  std::vector<std::unique_ptr<Writer>> writers_;
};

/// A family's index, read back.
struct FamilyIndex {
  std::string layout_path;  ///< the family's layout
  bool params_in_files = true;
  std::vector<std::string> files;            ///< member data files
  std::vector<std::string> param_paths;      ///< "/N", "/g/M"
  std::vector<std::vector<int64_t>> values;  ///< values[file][param]

  /// After resolve(): the declarations each of param_paths names.
  std::vector<std::vector<ParamId>> param_ids;

  /// Resolves param_paths against the family's layout once, so that bind_options() gives
  /// values by declaration and binding a member matches no names (a family of thousands of
  /// files is read faster). Throws Error(kData) for a path the layout does not declare.
  void resolve(const Layout& layout);
  /// Binding options for member `i`: its parameters given, absent from the file or not.
  BindOptions bind_options(size_t i) const;
};

/// True when `data_path` is a family index (its layout beside it declares /files and
/// /params as an index does).
bool is_family_index(const std::string& data_path);

/// Reads an index written by FamilyWriter. Paths in it are resolved against the index's
/// directory and held to the rule for reading (dudley/io/read_rule.hpp): each member and
/// the layout must resolve, symbolic links included, inside the index's folder or one of
/// `allow_outside`. Throws Error naming the index when it is not one, and Error(kData)
/// naming the path as stored and why when the rule refuses it.
FamilyIndex read_family_index(const std::string& index_path,
                              const std::vector<std::string>& allow_outside = {});

/// The members of a family given as a glob pattern ("out/run_*.bin"), sorted by name.
std::vector<std::string> family_members(const std::string& pattern);

}  // namespace dudley::layout
