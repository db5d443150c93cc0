// dudley.save: an open file or a nested dict of numpy arrays, written in any format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nodes.hpp"

namespace dudley::python {

/// Writes `obj` (a File, or a dict of numpy arrays, dicts and `item_class` objects: a value
/// with attributes and doc) to `path` in the format its extension names (or `format`), never
/// over the file being read; the format's notes, then "left out: ..." for each item a
/// `lossy` save left out (without it, such a save raises dudley.LossError naming them).
/// Arrays are borrowed, not copied. An s3:// `path` is reached with `storage_options`
/// (fsspec's names, as dudley.open takes them).
py::list save_tree(py::handle obj, const std::string& path, std::optional<std::string> format,
                   py::handle item_class, bool lossy,
                   const std::optional<py::dict>& storage_options, bool overwrite = false);

}  // namespace dudley::python
