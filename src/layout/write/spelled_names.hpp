// Names for a Dudley layout made from another format's tree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::layout {

/// Dudley names are C identifiers ([A-Za-z_][A-Za-z0-9_]*), while ASDF, Zarr and HDF5 keys
/// may be any text ('a/b', '1x', 'dx dy', ''). Returns one Dudley name per entry of `names`
/// (the members of one group, the fields of one struct, the parameters of one group): a
/// name that is already a Dudley name is kept; any other has each byte outside the
/// identifier alphabet replaced by '_', a leading '_' when it would start with a digit or
/// be empty, and a numeric suffix (_2, _3, ...) when the result is taken by a sibling.
/// Kept names are reserved first, so a valid name never changes because of an invalid
/// neighbour. Linear in the total length of the names.
std::vector<std::string> dudley_spellings(const std::vector<std::string_view>& names);

/// An array of `type` and `shape` in the terms a Dudley layout declares it, the bytes
/// unchanged: compound fields (nested ones too) named as dudley_spellings names them, and
/// fixed-length strings (ASDF `[ascii, 3]`, numpy `S3`: one string per element) as code
/// units along one more last dimension (`S1[..., 3]`), in fields too. `shape` is extended.
DType in_dudley_terms(const DType& type, std::vector<int64_t>& shape);

/// `source` (an array of `type` and `shape`) read as in_dudley_terms declares it: the same
/// bytes under the Dudley type, with the strings' last dimension added to every selection.
std::shared_ptr<model::ArraySource> in_dudley_terms(std::shared_ptr<model::ArraySource> source,
                                                    const DType& type,
                                                    const std::vector<int64_t>& shape);

}  // namespace dudley::layout
