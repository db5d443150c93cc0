// Choosing what of a tree a conversion carries: `convert SRC DST ITEM... --exclude ITEM`.
#pragma once

#include <string>
#include <vector>

#include "dudley/model/tree.hpp"

namespace dudley::model {

/// Prunes `tree` (opened from `source`, named in errors) to the items at the paths in
/// `include` ("/grid/x"; a group with everything below it; all of the tree when empty),
/// less those at the paths in `exclude` (with everything below them). The groups leading
/// to an included item are kept as its containers, without their attributes: they were not
/// asked for. Items of a list are carried with their list only. Throws Error(kUsage) naming
/// a path that names no item of the tree, one inside a list, and an exclusion of the root
/// or of everything included.
void keep_items(Tree& tree, const std::vector<std::string>& include,
                const std::vector<std::string>& exclude, const std::string& source);

}  // namespace dudley::model
