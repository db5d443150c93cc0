// The Ndarray Data Language (NDL): YAML documents describing the groups, arrays, dimension
// coordinates, attributes, types and storage of an ndarray file. Read into the model (arrays
// with `value` carry their data, the others their description only) and written from any
// model tree by the profile of ndl-resolutions.md (P1-P7): `dudley describe`.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::ndl {

/// An NDL document as a model tree. `path` names the text in errors, which give the YAML
/// line and column and the entity ("ndarray /g/x: ..."). Throws Error(kSyntax) for YAML
/// that does not parse, Error(kSemantic) for YAML that is not NDL (unknown keys, missing
/// types, shapes naming no DimCoord), Error(kType) for unknown types, Error(kData) for
/// values that do not fit their type or shape.
model::Tree read_ndl(std::string_view text, const std::string& path);

/// The NDL document in the file at `path` as a model tree.
model::Tree open_ndl(const std::string& path);

struct DescribeOptions {
  /// Write ndarray and dimcoord values (attribute values are always written).
  bool values = false;
};

/// Writes the NDL description of `tree` to `sink`, a group at a time (memory follows the
/// largest group's description and, with values, its largest array). What NDL cannot
/// express (float16, Dudley pointers, lists of items...) is left out, each with one line in
/// `warnings` naming the item. Throws the errors reading values throws.
void describe(const model::Tree& tree, const DescribeOptions& options,
              const std::function<void(std::string_view)>& sink,
              std::vector<std::string>& warnings);

/// describe() into a string.
std::string describe_text(const model::Tree& tree, const DescribeOptions& options,
                          std::vector<std::string>& warnings);

/// Adds the "ndl" format: reads NDL documents (.ndl, .yaml, .yml) and writes them with
/// every value (`dudley convert x.h5 x.yaml`).
void register_ndl_format(FormatRegistry& registry);

}  // namespace dudley::ndl
