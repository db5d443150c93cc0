#include "save.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "borrowed_array.hpp"
#include "dudley/core/error.hpp"
#include "dudley/model/memory_source.hpp"
#include "dudley/model/value_json.hpp"
#include "dudley/open.hpp"
#include "text_objects.hpp"

namespace dudley::python {
namespace {

// An attribute given from Python: numpy arrays and scalars stay typed (a copy of their own,
// attributes are small), anything else goes as the JSON-like value json.dumps makes of it.
model::AttributeValue attribute_value(const std::string& where, py::handle value) {
  py::module_ np = py::module_::import("numpy");
  if (py::isinstance(value, np.attr("ndarray")) || py::isinstance(value, np.attr("generic"))) {
    return borrow_value(value).to_native();
  }
  std::string text;
  try {
    text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw py::type_error(readable(where) +
                         ": an attribute must be a numpy array or scalar, or a "
                         "JSON-like value (str, number, bool, None, list, dict): " +
                         std::string(e.what()));
  }
  return model::from_json(nlohmann::ordered_json::parse(text));
}

struct Given {
  py::handle item_class;  // dudley.Item
};

std::unique_ptr<model::Node> node_of(const std::string& name, py::handle value, const Given& given,
                                     int depth);

// A numpy array (or what numpy.asarray makes of a value: a list, a number, a str) as a model
// array node. Its memory is borrowed, not copied: strides and byte order as they are.
std::unique_ptr<model::Node> array_node(const std::string& name, py::handle value) {
  NDArray data;
  try {
    data = borrow_value(value);
  } catch (const Error& e) {
    // The member the value was given for, so a tree of many arrays says which one.
    throw Error(e.category(), (name.empty() ? std::string("the value") : name) + ": " + e.message(),
                e.location());
  }
  auto node = std::make_unique<model::Node>();
  node->kind = model::NodeKind::kArray;
  node->name = name;
  node->dtype = data.dtype();
  node->shape = data.shape().dims();
  node->data = model::memory_source(std::move(data));
  return node;
}

// A nested dict of arrays (and dicts, and Items) as a model group. Keys are str, or bytes
// for a name that is not UTF-8 (h5py takes both).
std::unique_ptr<model::Node> group_node(const std::string& name, const py::dict& d,
                                        const Given& given, int depth) {
  auto node = std::make_unique<model::Node>();
  node->kind = model::NodeKind::kGroup;
  node->name = name;
  for (auto [k, v] : d) {
    node->children.push_back(node_of(name_bytes(k, "a member name"), v, given, depth + 1));
  }
  return node;
}

std::unique_ptr<model::Node> node_of(const std::string& name, py::handle value, const Given& given,
                                     int depth) {
  if (depth > 256) throw py::value_error("dicts nested more than 256 deep");
  if (py::isinstance(value, given.item_class)) {
    // depth + 1: an Item may hold an Item, even itself.
    std::unique_ptr<model::Node> node = node_of(name, value.attr("value"), given, depth + 1);
    node->doc = value.attr("doc").cast<std::string>();
    for (auto [k, v] : value.attr("attrs").cast<py::dict>()) {
      const std::string key = name_bytes(k, "an attribute name");
      std::string where = name;
      where += ": attribute ";
      where += key;
      node->attributes.set(key, attribute_value(where, v));
    }
    return node;
  }
  if (py::isinstance<py::dict>(value)) {
    return group_node(name, py::reinterpret_borrow<py::dict>(value), given, depth);
  }
  // A str is numpy's U array (numpy.asarray): HDF5 and Zarr v3 write it as a variable-length
  // UTF-8 string (what h5py writes for a str), the others as fixed UTF-32 text.
  try {
    return array_node(name, value);
  } catch (py::error_already_set& e) {
    throw py::type_error((name.empty() ? "the value" : name) +
                         ": not an array, dict or dudley.Item: " + std::string(e.what()));
  }
}

}  // namespace

// dudley.save: an open file (any format) or a nested dict of numpy arrays, to `path` in the
// format its extension names (or `format`). Never over one of its own inputs.
py::list save_tree(py::handle obj, const std::string& path, std::optional<std::string> format,
                   py::handle item_class, bool lossy,
                   const std::optional<py::dict>& storage_options, bool overwrite) {
  std::shared_ptr<const model::Tree> tree;
  if (py::isinstance<File>(obj)) {
    const File& f = obj.cast<const File&>();
    std::error_code ec;
    if (std::filesystem::equivalent(f.opened, path, ec)) {
      throw Error(ErrorCategory::kUsage, "the output is the file being read", Location::file(path));
    }
    tree = f.tree;
  } else if (py::isinstance<py::dict>(obj) || py::isinstance(obj, item_class)) {
    auto made = std::make_shared<model::Tree>();
    made->root = node_of("", obj, Given{item_class}, 0);
    if (made->root->kind != model::NodeKind::kGroup) {
      throw py::type_error("save takes a dict (the file's root group), not an array");
    }
    tree = made;
  } else {
    throw py::type_error("save takes a file dudley.open returned, or a dict of numpy arrays");
  }
  SaveOptions options;
  if (format) options.format = *format;
  options.lossy = lossy;
  options.overwrite = overwrite;
  if (storage_options) options.store.s3 = s3_options(*storage_options);
  SaveReport report;
  {
    py::gil_scoped_release unlocked;
    report = dudley::save(*tree, path, options);
  }
  // Notes and lost items name members, whose names may not be UTF-8.
  py::list out;
  for (const std::string& note : report.notes) out.append(readable_str(note));
  for (const std::string& item : report.lost) out.append(readable_str("left out: " + item));
  return out;
}

}  // namespace dudley::python
