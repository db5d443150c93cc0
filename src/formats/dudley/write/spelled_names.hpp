// Names for a Dudley layout made from another format's tree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"

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

/// `type` with the fields of its compounds (nested ones too) named as dudley_spellings names
/// them, so that an array of the source's type matches the struct declared for it.
DType with_dudley_field_names(const DType& type);

}  // namespace dudley::layout
