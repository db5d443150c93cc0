// The Ndarray Data Language (NDL): YAML documents describing the groups, arrays, dimension
// coordinates, attributes, types and storage of an ndarray file. Read into the model (arrays
// with `value` carry their data, the others their description only) and written from any
// model tree by the profile of ndl-resolutions.md (P1-P7): `dudley describe`.
//
// The public face of the format, shaped as every format's is (docs/development.md):
// NdlOpenOptions, NdlSaveOptions, open_ndl, write_ndl and register_ndl_format, plus the
// description of any tree (describe) that `dudley describe` prints.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::ndl {

/// How NDL documents are read: nothing of NDL's own yet.
struct NdlOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "ndl";
};

/// How NDL documents are written: nothing of NDL's own yet (every value is written).
struct NdlSaveOptions : FormatOptions {
  static constexpr const char* kFormat = "ndl";
};

/// An NDL document as a model tree. `path` names the text in errors, which give the YAML
/// line and column and the entity ("ndarray /g/x: ..."). Throws Error(kSyntax) for YAML
/// that does not parse, Error(kSemantic) for YAML that is not NDL (unknown keys, missing
/// types, shapes naming no DimCoord), Error(kType) for unknown types, Error(kData) for
/// values that do not fit their type or shape.
model::Tree read_ndl(std::string_view text, const std::string& path);

/// The NDL document in the file at `path` as a model tree (read_ndl of its text). `common`
/// is accepted for the same shape as every format's open.
model::Tree open_ndl(const std::string& path, const NdlOpenOptions& options = {},
                     const OpenOptions& common = {});

struct DescribeOptions {
  /// Write ndarray and dimcoord values (attribute values are always written).
  bool values = false;
  /// Name what the source's reader had no place for (Tree::skipped) among the warnings.
  bool skipped_as_warnings = true;
  /// Leave out the source format's own bookkeeping attributes at the root (ASDF's
  /// asdf_library): a conversion writes NDL, not the source's bookkeeping.
  bool leave_bookkeeping = false;
};

/// The most values of one array written as text: an array of more is described, its values
/// not written (an error naming it). 2^24 values make about 400 MB of YAML.
inline constexpr uint64_t kMaxTextValues = uint64_t{1} << 24;

/// What a description leaves out, one line per item naming it.
struct DescribeProblems {
  /// What NDL cannot state (float16, Dudley pointers, lists of items, attributes of types
  /// it has none for, links the file holds): the description is complete otherwise.
  std::vector<std::string> warnings;
  /// What of the file could not be read (an array that cannot be resolved, values that
  /// cannot be read or are too many to write as text): the description lacks it.
  std::vector<std::string> errors;
  /// What NDL states otherwise than the source, every value kept (fixed-length strings as
  /// strings, which have no length in NDL).
  std::vector<std::string> notes;
};

/// Writes the NDL description of `tree` to `sink`, a group at a time (memory follows the
/// largest group's description and, with values, its largest array, at most
/// kMaxTextValues values). What it leaves out is in `problems`.
void describe(const model::Tree& tree, const DescribeOptions& options,
              const std::function<void(std::string_view)>& sink, DescribeProblems& problems);

/// describe() into a string.
std::string describe_text(const model::Tree& tree, const DescribeOptions& options,
                          DescribeProblems& problems);

/// Writes the NDL description of `tree` with every value to `destination` (atomically).
/// What NDL cannot state and what could not be read are a LossError, nothing written,
/// unless `common.lossy`: then they are the report's `lost`; what NDL states otherwise is in
/// its `notes`.
SaveReport write_ndl(const model::Tree& tree, const std::string& destination,
                     const NdlSaveOptions& options = {}, const SaveOptions& common = {});

/// Adds the "ndl" format: reads NDL documents (.ndl, .yaml, .yml) and writes them with
/// every value (`dudley convert x.h5 x.yaml`).
void register_ndl_format(FormatRegistry& registry);

}  // namespace dudley::ndl
