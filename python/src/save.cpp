#include "save.hpp"

#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/model/memory_source.hpp"
#include "dudley/open.hpp"

namespace dudley::python {
namespace {

// A numpy array as a model array node (its bytes copied once, in C order, in its own byte
// order). Structured and object arrays are not taken yet.
std::unique_ptr<model::Node> array_node(const std::string& name, py::handle value) {
  py::array a = py::array::ensure(value, py::array::c_style);
  if (!a) throw py::type_error(name + ": not an array");
  const std::string typestr = py::str(a.dtype().attr("str")).cast<std::string>();
  DType type = DType::from_typestr(typestr);  // Error(kType) for kinds not taken
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  NDArray data(type, Shape(shape));
  std::memcpy(data.mutable_data(), a.data(), data.byte_size());
  auto node = std::make_unique<model::Node>();
  node->kind = model::NodeKind::kArray;
  node->name = name;
  node->dtype = type;
  node->shape = std::move(shape);
  node->data = model::memory_source(std::move(data));
  return node;
}

// A nested dict of numpy arrays (and dicts) as a model group. Keys must be strings.
std::unique_ptr<model::Node> group_node(const std::string& name, const py::dict& d, int depth) {
  if (depth > 256) throw py::value_error("dicts nested more than 256 deep");
  auto node = std::make_unique<model::Node>();
  node->kind = model::NodeKind::kGroup;
  node->name = name;
  for (auto [k, v] : d) {
    if (!py::isinstance<py::str>(k)) throw py::type_error("member names must be strings");
    const std::string key = k.cast<std::string>();
    node->children.push_back(py::isinstance<py::dict>(v)
                                 ? group_node(key, py::reinterpret_borrow<py::dict>(v), depth + 1)
                                 : array_node(key, v));
  }
  return node;
}

}  // namespace

// dudley.save: an open file (any format) or a nested dict of numpy arrays, to `path` in the
// format its extension names (or `format`). Never over one of its own inputs.
std::vector<std::string> save_tree(py::handle obj, const std::string& path,
                                   std::optional<std::string> format) {
  std::shared_ptr<const model::Tree> tree;
  if (py::isinstance<File>(obj)) {
    const File& f = obj.cast<const File&>();
    std::error_code ec;
    if (std::filesystem::equivalent(f.opened, path, ec)) {
      throw Error(ErrorCategory::kUsage, "the output is the file being read", Location::file(path));
    }
    tree = f.tree;
  } else if (py::isinstance<py::dict>(obj)) {
    auto made = std::make_shared<model::Tree>();
    made->root = group_node("", py::reinterpret_borrow<py::dict>(obj), 0);
    tree = made;
  } else {
    throw py::type_error("save takes a file dudley.open returned, or a dict of numpy arrays");
  }
  SaveOptions options;
  if (format) options.format = *format;
  SaveReport report;
  {
    py::gil_scoped_release unlocked;
    report = dudley::save(*tree, path, options);
  }
  return report.notes;
}

}  // namespace dudley::python
