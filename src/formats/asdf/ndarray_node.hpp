// core/ndarray nodes -> model arrays: block sources (by index, negative from the end,
// external files), inline data, views (offset and strides) and masks.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dudley/io/store.hpp"

#include "block_store.hpp"
#include "dudley/model/tree.hpp"
#include "yaml_names.hpp"

namespace dudley::asdf {

/// What turning ndarray nodes into arrays needs from the file being read.
struct ArrayContext {
  std::string path;  ///< the main file, for errors and external sources
  AsdfOpenOptions options;
  io::StoreOptions store;  ///< how a main file at a URL reaches its external files
  /// Folders external sources may also be read from (OpenOptions::allow_outside).
  std::vector<std::string> allow_outside;
  std::shared_ptr<const BlockStore> blocks;
  ExpansionBudget* budget = nullptr;
  /// Stores of external files by resolved path, opened on first use.
  std::map<std::string, std::shared_ptr<const BlockStore>> external;
};

/// Whether `node` is tagged core/ndarray (any 1.x version).
bool is_ndarray(const YamlNode& node);

/// The array an ndarray node describes, named `name`. Problems of this array (a bad
/// datatype, a source that does not exist, a view outside its block) are thrown as
/// Error(kData/kType) at the node; the caller keeps them on the node.
std::unique_ptr<model::Node> ndarray_to_array(const YamlNode& node, const std::string& name,
                                              ArrayContext& context);

}  // namespace dudley::asdf
