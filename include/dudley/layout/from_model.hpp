// Writing any model tree (from any format the model reads) as a Dudley file.
#pragma once

#include <string>

#include "dudley/layout/writer.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::layout {

/// A layout describing `tree`: its groups, lists and arrays with literal shapes, parameters
/// as fixed values, docs, struct types for compound elements, and a !DUDLEY signature.
/// Throws Error(kType) naming the item for an element type Dudley cannot express (opaque,
/// enum, variable-length, references) and Error(kUsage) for a name that is not a Dudley
/// name or an item that could not be read.
std::string layout_text_for(const model::Tree& tree);

/// Writes `tree` as Dudley data file `data_path` plus its layout beside it, streaming each
/// array block by block (memory stays bounded). Returns the data file's size.
uint64_t write_tree(const model::Tree& tree, const std::string& data_path,
                    const WriteOptions& options = {});

}  // namespace dudley::layout
