// Arrays written inline in the tree (`data: [[1, 2], [3, 4]]`, or an ndarray tag on a bare
// list), with or without a `datatype`.
#pragma once

#include <string>

#include "dudley/core/ndarray.hpp"
#include "yaml_names.hpp"

namespace dudley::asdf {

/// The array an inline `data` list holds, in native byte order. With `datatype` (may be
/// nullptr) the values are converted to it; without, the type is inferred as the standard
/// says (any string: ucs4 of the longest; any complex: complex128; any float: float64; any
/// int: int64; else bool8). `shape` (may be nullptr) must match the data. `null` elements
/// read as 0 (NaN for floats, "" for strings). Throws Error(kData) at the offending value
/// (ragged lists, a value its type cannot hold, a shape that does not match).
NDArray inline_array(const YamlNode& data, const YamlNode* datatype, const YamlNode* shape,
                     const std::string& path, ExpansionBudget& budget);

/// A complex number as Python writes it (`(1+2j)`, `2j`, `(nan-infj)`, `(-0-1e+308j)`),
/// or nullopt.
std::optional<std::pair<double, double>> parse_python_complex(std::string_view text);

/// Tag of complex scalars in the tree.
inline constexpr std::string_view kComplexTagPrefix = "tag:stsci.edu:asdf/core/complex-1.";

}  // namespace dudley::asdf
