// The Python module `dudley`: any format the library reads, opened h5py-style, arrays
// read into numpy through numpy's basic indexing. Formats need no Python code: everything
// goes through the format registry and the model.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/format.hpp"
#include "dudley/formats/dudley/syntax/emitter.hpp"
#include "dudley/formats/dudley/syntax/parser.hpp"
#include "dudley/io/file_glob.hpp"
#include "dudley/model/memory_source.hpp"
#include "dudley/model/tree.hpp"
#include "dudley/model/value_json.hpp"
#include "dudley/open.hpp"
#include "numpy_dtype.hpp"
#include "selection.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {
namespace {

// A node of an open tree; the tree stays alive while any of its nodes is used.
struct NodeRef {
  std::shared_ptr<const model::Tree> tree;
  const model::Node* node = nullptr;
  std::string path;  ///< "/" for the root
  /// The file opened: where a contiguous array's storage.offset points (view()).
  std::shared_ptr<const std::string> filename;
};

std::string child_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

// The node at `key` below `at` ("x", "g/x", or absolute "/g/x"); KeyError when absent.
NodeRef lookup(const NodeRef& at, const std::string& key) {
  const std::string path = key.starts_with("/") ? key : child_path(at.path, key);
  const model::Node* n = at.tree->find(path);
  if (n == nullptr) throw py::key_error(path);
  return {at.tree, n, path, at.filename};
}

std::vector<std::string> member_names(const NodeRef& at) {
  std::vector<std::string> names;
  model::for_each_child(*at.node, [&](uint64_t i, const model::Node& c) {
    names.push_back(at.node->kind == model::NodeKind::kList ? std::to_string(i) : c.name);
    return true;
  });
  return names;
}

// Attributes as Python values: JSON-like values as Python objects, typed arrays as numpy.
py::object attributes(const model::Attributes& attrs) {
  py::module_ json = py::module_::import("json");
  py::dict out;
  for (const auto& [name, value] : attrs) {
    if (const auto* v = std::get_if<model::Value>(&value)) {
      out[py::str(name)] = json.attr("loads")(model::to_json(*v).dump());
    } else {
      const NDArray& a = std::get<NDArray>(value);
      py::array arr(numpy_dtype(a.dtype()), a.shape().dims());
      std::memcpy(arr.mutable_data(), a.data(), a.byte_size());
      out[py::str(name)] = arr;
    }
  }
  return py::module_::import("types").attr("MappingProxyType")(out);
}

// A read NDArray handed to numpy without a copy: numpy keeps it alive.
py::array to_numpy(NDArray data, const DType& type, const std::vector<int64_t>& shape) {
  auto* owner = new NDArray(std::move(data));
  py::capsule keep(owner, [](void* p) { delete static_cast<NDArray*>(p); });
  return py::array(numpy_dtype(type), shape, owner->mutable_data(), keep);
}

py::object wrap(const NodeRef& ref);

struct Group : NodeRef {};
struct Array : NodeRef {
  py::object read(py::handle index) const {
    // A field name of a compound: that field of the whole array, as numpy gives it.
    if (py::isinstance<py::str>(index)) {
      if (node->dtype.kind() != DTypeKind::kCompound) {
        throw py::index_error(path + " has no fields (a name indexes a compound array)");
      }
      return read(py::ellipsis())[index];
    }
    return read_selection(index);
  }

  // A read-only numpy view of the array's bytes in the file, memory-mapped: no copy. Only
  // for an array stored as one uncompressed run in C order.
  py::object view() const {
    const model::Storage& st = node->storage;
    if (st.kind != model::Storage::Kind::kContiguous || !st.offset || st.mask || !node->data) {
      throw Error(ErrorCategory::kUsage,
                  path + " is not stored as one uncompressed run of bytes: read it with a[...]");
    }
    py::object np = py::module_::import("numpy");
    return np.attr("memmap")(*filename, "dtype"_a = stored_numpy_dtype(node->dtype), "mode"_a = "r",
                             "offset"_a = *st.offset, "shape"_a = py::tuple(py::cast(node->shape)));
  }

  py::array read_selection(py::handle index) const {
    if (!node->error.empty()) {
      throw Error(node->error.category, node->error.message, node->error.location);
    }
    if (!node->data) throw Error(ErrorCategory::kUsage, path + " holds no data to read");
    const Selection s = selection_of(index, node->shape);
    NDArray data;
    {
      py::gil_scoped_release unlocked;  // other Python threads run while the file is read
      data = node->data->read(s.slab);
    }
    return to_numpy(std::move(data), node->dtype, s.result);
  }
};

py::object wrap(const NodeRef& ref) {
  if (ref.node->kind == model::NodeKind::kArray) return py::cast(Array{ref});
  return py::cast(Group{ref});
}

struct File : Group {
  std::string opened;  ///< the path given to open()
  std::string format;
};

// The options open() takes, as the formats' own option names (the CLI's spelling).
GivenOptions given_options(const std::optional<std::string>& layout,
                           const std::optional<std::string>& order,
                           const std::optional<py::dict>& params) {
  GivenOptions given;
  if (layout) given["--layout"] = {*layout};
  if (order) given["--order"] = {*order};
  if (params) {
    for (auto [k, v] : *params) {
      given["--param"].push_back(py::str(k).cast<std::string>() + "=" +
                                 py::str(v).cast<std::string>());
    }
  }
  return given;
}

File open_given(const std::string& path, const GivenOptions& given,
                const std::optional<std::string>& format) {
  OpenOptions options;
  for (const Format* f : FormatRegistry::builtin().formats()) f->apply_open_options(given, options);
  if (format) {
    options.format = *format;
  } else if (!given.empty()) {
    options.format = "dudley";  // layouts, orders, parameters: Dudley data
  }
  std::shared_ptr<model::Tree> tree;
  {
    py::gil_scoped_release unlocked;
    tree = std::make_shared<model::Tree>(dudley::open(path, options));
  }
  File f;
  f.tree = tree;
  f.node = tree->root.get();
  f.path = "/";
  f.filename = std::make_shared<const std::string>(path);
  f.opened = path;
  f.format = tree->format;
  return f;
}

File open_path(const std::string& path, std::optional<std::string> layout,
               std::optional<std::string> order, std::optional<py::dict> params,
               std::optional<std::string> format) {
  return open_given(path, given_options(layout, order, params), format);
}

// A family of files: a glob's matches in name order, or the members of a family index with
// what the index says reading each needs (a layout, parameters).
struct Family {
  std::vector<FamilyMember> members;
  std::optional<std::string> format;

  File open(size_t i) const { return open_given(members.at(i).path, members[i].given, format); }

  // Array `path` (with numpy index `index`) of every member: one array stacked along a new
  // first axis when every member gives the same shape and dtype, else a list.
  py::object read(const std::string& path, py::handle index, bool stack) const {
    py::list parts;
    for (size_t i = 0; i < members.size(); ++i) {
      File f = open(i);
      py::object node = wrap(lookup(f, path));
      parts.append(node.attr("__getitem__")(index));
    }
    if (!stack || parts.empty()) return parts;
    py::module_ np = py::module_::import("numpy");
    py::object first = parts[0];
    for (py::handle p : parts) {
      if (!p.attr("shape").equal(first.attr("shape")) ||
          !p.attr("dtype").equal(first.attr("dtype"))) {
        return parts;
      }
    }
    return np.attr("stack")(parts);
  }
};

Family open_family(const std::string& pattern, std::optional<std::string> layout,
                   std::optional<std::string> order, std::optional<py::dict> params,
                   std::optional<std::string> format) {
  const GivenOptions given = given_options(layout, order, params);
  Family fam;
  fam.format = format;
  if (auto members = FormatRegistry::builtin().family_index(pattern)) {
    for (FamilyMember& m : *members) {
      for (const auto& [name, values] : given) {  // what the caller said wins
        if (name == "--param") {
          m.given[name].insert(m.given[name].end(), values.begin(), values.end());
        } else {
          m.given[name] = values;
        }
      }
      fam.members.push_back(std::move(m));
    }
  } else {
    for (const std::string& file : io::glob_files(pattern)) fam.members.push_back({file, given});
  }
  return fam;
}

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

// One problem `dudley.check` found in a layout.
struct Diagnostic {
  std::string file;  ///< the path checked, or "<text>"
  uint32_t line = 0;
  uint32_t column = 0;
  std::string code;  ///< "undefined-parameter", ...
  std::string message;
};

// Layout text, and the name to report it under: a path that names a file is read.
std::pair<std::string, std::string> layout_text(const std::string& text_or_path) {
  std::error_code ec;
  if (text_or_path.find('\n') == std::string::npos &&
      std::filesystem::is_regular_file(text_or_path, ec)) {
    return {read_text_file(text_or_path), text_or_path};
  }
  return {text_or_path, "<text>"};
}

std::vector<Diagnostic> check_layout(const std::string& text_or_path) {
  const auto [text, name] = layout_text(text_or_path);
  const layout::ParseResult result = layout::parse_layout(text);
  std::vector<Diagnostic> out;
  for (const layout::Diagnostic& d : result.diagnostics) {
    out.push_back({name, d.line, d.column, layout::diag_code_name(d.code), d.message});
  }
  return out;
}

std::string format_layout(const std::string& text) {
  layout::ParseOptions options;
  options.keep_comments = true;  // every comment is kept, as `dudley fmt` keeps them
  const layout::ParseResult result = layout::parse_layout(text, options);
  if (!result.ok()) {
    const layout::Diagnostic& d = result.diagnostics.front();
    throw Error(ErrorCategory::kSyntax, d.message, Location::text("<text>", d.line, d.column));
  }
  return layout::emit_layout(result.layout, result.source);
}

std::string short_repr(const NodeRef& r) {
  if (r.node->kind == model::NodeKind::kArray) {
    return "<dudley.Array " + r.path + " " + r.node->dtype.to_string() +
           " shape=" + py::str(py::cast(r.node->shape)).cast<std::string>() + ">";
  }
  return "<dudley.Group " + r.path + " (" + std::to_string(member_names(r).size()) + " members)>";
}

}  // namespace
}  // namespace dudley::python

PYBIND11_MODULE(dudley, m) {
  using namespace dudley;
  using namespace dudley::python;
  m.doc() =
      "Open any file dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy) "
      "h5py-style; arrays read into numpy with numpy's basic indexing.";
  static py::exception<Error> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object exc = py::reinterpret_borrow<py::object>(error.ptr())(py::str(e.what()));
      const Location& at = e.location();
      exc.attr("category") = std::string(to_string(e.category()));
      exc.attr("path") = at.path.empty() ? py::none() : py::cast(at.path);
      exc.attr("line") = at.line ? py::cast(at.line) : py::none();
      exc.attr("column") = at.column ? py::cast(at.column) : py::none();
      exc.attr("offset") = at.byte_offset ? py::cast(*at.byte_offset) : py::none();
      PyErr_SetObject(error.ptr(), exc.ptr());
    }
  });

  py::class_<Group>(m, "Group", "A group (or list) of a file: members by name, h5py-style.")
      .def("__getitem__",
           [](const Group& g, const std::string& key) { return wrap(lookup(g, key)); })
      .def("__contains__",
           [](const Group& g, const std::string& key) {
             return g.tree->find(key.starts_with("/") ? key : child_path(g.path, key)) != nullptr;
           })
      .def("keys", [](const Group& g) { return member_names(g); })
      .def("__iter__", [](const Group& g) { return py::iter(py::cast(member_names(g))); })
      .def("__len__", [](const Group& g) { return member_names(g).size(); })
      .def("items",
           [](const Group& g) {
             py::list out;
             for (const std::string& k : member_names(g))
               out.append(py::make_tuple(k, wrap(lookup(g, k))));
             return out;
           })
      .def("visititems",
           [](const Group& g, py::function fn) -> py::object {
             // Depth first, h5py's order; a value other than None from fn stops the walk.
             std::vector<NodeRef> todo{g};
             while (!todo.empty()) {
               NodeRef at = todo.back();
               todo.pop_back();
               const std::vector<std::string> names = member_names(at);
               for (auto it = names.rbegin(); it != names.rend(); ++it) {
                 NodeRef c = lookup(at, *it);
                 if (c.node->kind != model::NodeKind::kArray) todo.push_back(c);
               }
               for (const std::string& k : names) {
                 NodeRef c = lookup(at, k);
                 py::object r = fn(c.path.substr(g.path == "/" ? 1 : g.path.size() + 1), wrap(c));
                 if (!r.is_none()) return r;
               }
             }
             return py::none();
           })
      .def_property_readonly("attrs", [](const Group& g) { return attributes(g.node->attributes); })
      .def_property_readonly("doc", [](const Group& g) { return g.node->doc; })
      .def_property_readonly("name", [](const Group& g) { return g.path; })
      .def("__repr__", [](const Group& g) { return short_repr(g); });

  py::class_<File, Group>(m, "File", "An open file (dudley.open).")
      .def_readonly("filename", &File::opened)
      .def_readonly("format", &File::format)
      .def("__enter__", [](File& f) -> File& { return f; })
      .def("__exit__", [](File&, py::args) { return false; })
      .def("close", [](File&) {});

  py::class_<Array>(m, "Array", "An array of a file: read with numpy indexing, a[...].")
      .def_property_readonly("dtype",
                             [](const Array& a) { return stored_numpy_dtype(a.node->dtype); })
      .def_property_readonly("shape",
                             [](const Array& a) { return py::tuple(py::cast(a.node->shape)); })
      .def_property_readonly("ndim", [](const Array& a) { return a.node->shape.size(); })
      .def_property_readonly("size",
                             [](const Array& a) {
                               int64_t n = 1;
                               for (int64_t d : a.node->shape) n *= d;
                               return n;
                             })
      .def_property_readonly("nbytes",
                             [](const Array& a) {
                               int64_t n = static_cast<int64_t>(a.node->dtype.size());
                               for (int64_t d : a.node->shape) n *= d;
                               return n;
                             })
      .def_property_readonly("attrs", [](const Array& a) { return attributes(a.node->attributes); })
      .def_property_readonly("doc", [](const Array& a) { return a.node->doc; })
      .def_property_readonly("name", [](const Array& a) { return a.path; })
      .def("__getitem__", [](const Array& a, py::handle index) { return a.read(index); })
      .def("view", &Array::view,
           "A read-only numpy.memmap of the array in the file (no copy), for an array stored "
           "as one uncompressed run in C order")
      .def("__len__",
           [](const Array& a) {
             if (a.node->shape.empty()) throw py::type_error("len() of a 0-d array");
             return a.node->shape[0];
           })
      .def(
          "__array__",
          [](const Array& a, py::object dtype, py::object) {
            py::array out = a.read_selection(py::ellipsis());
            return dtype.is_none() ? out : py::array(out.attr("astype")(dtype));
          },
          "dtype"_a = py::none(), "copy"_a = py::none())
      .def("__repr__", [](const Array& a) { return short_repr(a); });

  py::class_<Diagnostic>(m, "Diagnostic", "A problem dudley.check found in a layout.")
      .def_readonly("file", &Diagnostic::file)
      .def_readonly("line", &Diagnostic::line)
      .def_readonly("column", &Diagnostic::column)
      .def_readonly("code", &Diagnostic::code)
      .def_readonly("message", &Diagnostic::message)
      .def("__repr__", [](const Diagnostic& d) {
        return d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " +
               d.message + " [" + d.code + "]";
      });
  m.def("check", &check_layout, "text_or_path"_a,
        "The problems of a Dudley layout (its text, or the path of a .dud file), as "
        "Diagnostic objects; empty when it is valid.");
  m.def("fmt", &format_layout, "text"_a,
        "A Dudley layout's text in canonical form (every comment kept); dudley.Error with "
        "the line and column of the first problem when it does not parse.");
  py::class_<Family>(m, "Family",
                     "The members of a file family (dudley.open_family), each opened on use.")
      .def("__len__", [](const Family& f) { return f.members.size(); })
      .def("__getitem__",
           [](const Family& f, int64_t i) {
             const auto n = static_cast<int64_t>(f.members.size());
             if (i < -n || i >= n) throw py::index_error("no member " + std::to_string(i));
             return f.open(static_cast<size_t>(i < 0 ? i + n : i));
           })
      .def("__iter__",
           [](const Family& f) {
             py::list files;
             for (size_t i = 0; i < f.members.size(); ++i) files.append(py::cast(f.open(i)));
             return py::iter(files);
           })
      .def_property_readonly("files",
                             [](const Family& f) {
                               std::vector<std::string> out;
                               for (const FamilyMember& member : f.members)
                                 out.push_back(member.path);
                               return out;
                             })
      .def("read", &Family::read, "path"_a, "index"_a = py::ellipsis(), "stack"_a = true,
           "Array `path` (indexed by `index`) of every member: stacked along a new first axis "
           "when all have one shape and dtype (and stack), else a list.");
  m.def("open_family", &open_family, "pattern"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "A family: a glob pattern ('run_*.h5', name order) or a family index "
        "(run.index.bin); the other arguments as open() takes them, for every member.");
  m.def("save", &save_tree, "obj"_a, "path"_a, "format"_a = py::none(),
        "Write an open file (any format) or a nested dict of numpy arrays to `path`, in the "
        "format its extension names or `format`; the output appears whole or not at all. "
        "Returns notes on what the format could not keep.");
  m.def("open", &open_path, "path"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "Open a file of any format dudley reads. layout: a Dudley layout for Dudley data (or "
        "for a file of another format, as `dudley layout` writes); order: byte order of '|' "
        "types; params: {name: value} for layout parameters; format: force a format.");
  m.attr("__version__") = DUDLEY_VERSION;
}
