// The Dudley format module's reader side: a layout bound to a data file, as a model tree.
#pragma once

#include <memory>
#include <string>

#include "dudley/io/store.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::layout {

/// Builds the model tree of `layout` over `source`. Parameters are read and every array is
/// located now (that is what listing needs); array data is read only through Node::data.
/// Items that cannot be resolved keep an error message instead of throwing.
model::Tree dudley_tree(std::shared_ptr<const Layout> layout,
                        std::shared_ptr<io::ByteSource> source, BindOptions options = {});

/// Opens DATA with its layout: `layout_path`, or else NAME.dud beside data file NAME.EXT.
/// With `wanted` paths, group members that lead to none of them and lie below none are left
/// out of the tree (and not bound): OpenOptions::wanted. Either path may be a URL (s3://,
/// https://), reached with `stores`: the data is then read by ranges as it is needed.
/// Throws Error(kIo / kSyntax / kSemantic) naming the file that failed.
model::Tree open_with_layout(const std::string& data_path, const std::string& layout_path = {},
                             BindOptions options = {}, std::vector<std::string> wanted = {},
                             const io::StoreOptions& stores = {});

}  // namespace dudley::layout
