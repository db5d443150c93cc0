// dudley.Group, dudley.File and dudley.Array, and dudley.open / _save / _reopen_native:
// files of any format, h5py-style.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "nodes.hpp"
#include "numpy_dtype.hpp"
#include "preview.hpp"
#include "save.hpp"
#include "text_objects.hpp"

#include "bindings.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {

namespace {

// dudley.Array: type, shape, storage, reads with numpy indexing.
void bind_array(py::module_& m) {
  // An array its reader could not read (an unknown codec, damage) has no type or shape:
  // asking for them raises its error (dudley.DataTypeError, dudley.DataError) instead of
  // answering with a made-up one; `error` says why without raising.
  py::class_<Array>(m, "Array", "An array of a file: read with numpy indexing, a[...].")
      .def_property_readonly("dtype",
                             [](const Array& a) {
                               a.check_readable();
                               return a.dtype(true);
                             })
      .def_property_readonly("shape",
                             [](const Array& a) -> py::object {
                               a.check_readable();
                               if (a.node->empty) return py::none();  // h5py's Empty
                               return py::tuple(py::cast(a.shape()));
                             })
      .def_property_readonly("ndim",
                             [](const Array& a) {
                               a.check_readable();
                               return a.shape().size();
                             })
      .def_property_readonly("size",
                             [](const Array& a) {
                               a.check_readable();
                               int64_t n = 1;
                               for (int64_t d : a.shape()) n *= d;
                               return n;
                             })
      .def_property_readonly("nbytes",
                             [](const Array& a) {
                               a.check_readable();
                               int64_t n = static_cast<int64_t>(a.node->dtype.size());
                               for (int64_t d : a.node->shape) n *= d;
                               return n;
                             })
      .def_property_readonly(
          "error",
          [](const Array& a) -> py::object {
            if (a.node->error.empty()) return py::none();
            return readable_str(a.node->error.text());
          },
          "Why the array cannot be read (its reader's error, with the place), or None")
      .def_property_readonly(
          "attrs", [](const Array& a) { return attributes(*a.node, a.tree->references.get()); })
      .def_property_readonly("doc", [](const Array& a) { return readable_str(a.node->doc); })
      .def_property_readonly("name", [](const Array& a) { return name_object(a.path); })
      .def("__getitem__", [](const Array& a, py::handle index) { return a.read(index); })
      .def("_read_outer", &Array::read_outer, "axes"_a,
           "The outer selection `axes` (per dimension (start, count, step) or ascending "
           "coordinates) as (data, positions, reads); dudley._fancy's reader")
      .def("view", &Array::view,
           "A read-only numpy.memmap of the array in the file (no copy), for an array stored "
           "as one uncompressed run in C order")
      .def("__len__",
           [](const Array& a) {
             const std::vector<int64_t> shape = a.shape();
             if (shape.empty()) throw py::type_error("len() of a 0-d array");
             return shape[0];
           })
      .def(
          "__array__",
          [](const Array& a, const py::object& dtype, const py::object&) {
            if (a.node->empty) return py::array(a.dtype(false), std::vector<int64_t>{0});
            py::array out = a.read_selection(py::ellipsis());
            return dtype.is_none() ? out : py::array(out.attr("astype")(dtype));
          },
          "dtype"_a = py::none(), "copy"_a = py::none())
      .def_property_readonly("storage", [](const Array& a) { return storage_dict(*a.node); })
      .def_property_readonly(
          "read_unit",
          [](const Array& a) -> py::object {
            // The block a read decodes whole (a chunk), or None for one run of bytes.
            if (!a.node->data) return py::none();
            std::vector<int64_t> unit = a.node->data->read_unit().shape;
            if (a.string_units() > 0 && unit.size() == a.node->shape.size()) unit.pop_back();
            return unit.empty() ? py::object(py::none()) : py::object(py::tuple(py::cast(unit)));
          },
          "The shape a read decodes whole (a chunk or block), or None: what Dask chunks follow")
      .def("__reduce__", [](const Array& a) { return reduce_node(a, false); })
      .def("__repr__", [](const Array& a) { return readable_str(short_repr(a)); })
      .def("_repr_html_", [](const Array& a) { return readable_str(array_html(a)); });
}

}  // namespace

void bind_nodes(py::module_& m) {
  py::class_<Group>(m, "Group",
                    "A group (or list) of a file: members by name, h5py-style; a list's items "
                    "by position too, and iteration over a list gives its items.")
      // Names as str or bytes, as h5py takes them (a str's surrogate escapes as their bytes).
      .def("__getitem__",
           [](const Group& g, const py::str& key) {
             return wrap(lookup(g, name_bytes(key, "a member name")));
           })
      .def("__getitem__",
           [](const Group& g, const py::bytes& key) {
             return wrap(lookup(g, name_bytes(key, "a member name")));
           })
      .def("__getitem__",
           [](const Group& g, int64_t i) -> py::object {
             if (g.node->kind == model::NodeKind::kArray) {
               // A file that is one array (.npy): the array is its root, f["/"].
               return wrap(lookup(g, "/")).attr("__getitem__")(i);
             }
             if (g.node->kind != model::NodeKind::kList) {
               throw py::type_error(readable(g.path) +
                                    " is a group: its members are named, not numbered");
             }
             const auto n = static_cast<int64_t>(model::child_count(*g.node));
             if (i < -n || i >= n) {
               throw py::index_error(readable(g.path) + " has " + std::to_string(n) +
                                     " items, no " + std::to_string(i));
             }
             return wrap(lookup(g, std::to_string(i < 0 ? i + n : i)));
           })
      .def_property_readonly(
          "is_list", [](const Group& g) { return g.node->kind == model::NodeKind::kList; },
          "True for a list (items by position), False for a group (members by name)")
      .def("__getitem__",
           [](const Group& g, const py::object& selection) -> py::object {
             // A file that is one array (.npy, a Zarr array store): f[...] selects in it,
             // as f["/"][...] does.
             if (g.node->kind == model::NodeKind::kArray) {
               return wrap(lookup(g, "/")).attr("__getitem__")(selection);
             }
             throw py::type_error(
                 readable(g.path) + " is a group: take its members by name (g[\"x\"])" +
                 std::string(g.node->kind == model::NodeKind::kList ? " or position (g[0])" : ""));
           })
      .def("__contains__",
           [](const Group& g, py::handle name) {
             const std::string key = name_bytes(name, "a member name");
             return g.tree->find(key.starts_with("/") ? key : child_path(g.path, key)) != nullptr;
           })
      .def("keys", [](const Group& g) { return name_list(member_names(g)); })
      .def("__iter__",
           [](const Group& g) {
             if (g.node->kind != model::NodeKind::kList) {
               return py::iter(name_list(member_names(g)));
             }
             py::list items;
             for (const std::string& k : member_names(g)) items.append(wrap(lookup(g, k)));
             return py::iter(items);
           })
      .def("__len__", [](const Group& g) { return member_names(g).size(); })
      .def("items",
           [](const Group& g) {
             py::list out;
             for (const std::string& k : member_names(g))
               out.append(py::make_tuple(name_object(k), wrap(lookup(g, k))));
             return out;
           })
      .def("visititems",
           [](const Group& g, const py::function& fn) -> py::object {
             // h5py's order: each member, then everything below it, before the next member
             // (preorder, members in the group's order); a value other than None from fn
             // stops the walk. A stack, not recursion: a file may nest deeply.
             std::vector<NodeRef> todo;
             auto push_members = [&](const NodeRef& at) {
               const std::vector<std::string> names = member_names(at);
               for (auto it = names.rbegin(); it != names.rend(); ++it)
                 todo.push_back(lookup(at, *it));
             };
             push_members(g);
             while (!todo.empty()) {
               NodeRef c = todo.back();
               todo.pop_back();
               py::object r =
                   fn(name_object(c.path.substr(g.path == "/" ? 1 : g.path.size() + 1)), wrap(c));
               if (!r.is_none()) return r;
               if (c.node->kind != model::NodeKind::kArray) push_members(c);
             }
             return py::none();
           })
      .def_property_readonly(
          "attrs", [](const Group& g) { return attributes(*g.node, g.tree->references.get()); })
      .def_property_readonly(
          "params",
          [](const Group& g) {
            // A Dudley group's parameters (the integers that shape its arrays); None for one
            // whose value could not be read.
            py::dict out;
            for (const model::Parameter& p : g.node->params) {
              out[py::str(p.name)] = p.value ? py::cast(*p.value) : py::none();
            }
            return py::module_::import("types").attr("MappingProxyType")(out);
          },
          "The group's parameters by name (Dudley layouts), read-only")
      .def_property_readonly(
          "param_attrs",
          [](const Group& g) {
            // Each parameter's `#@` attributes (a layout's `N := i4  #@ long_name: "..."`).
            py::dict out;
            for (const model::Parameter& p : g.node->params) {
              out[py::str(p.name)] = attributes(p.attributes, {}, g.tree->references.get());
            }
            return py::module_::import("types").attr("MappingProxyType")(out);
          },
          "Each parameter's attributes by parameter name (Dudley layouts), read-only")
      .def_property_readonly("doc", [](const Group& g) { return readable_str(g.node->doc); })
      .def_property_readonly("name", [](const Group& g) { return name_object(g.path); })
      .def("__repr__", [](const Group& g) { return readable_str(tree_repr(g, 40, false)); })
      .def("_repr_html_", [](const Group& g) { return readable_str(tree_repr(g, 200, true)); })
      .def("__reduce__", [](const Group& g) { return reduce_node(g, false); });

  py::class_<File, Group>(m, "File", "An open file (dudley.open).")
      .def_property_readonly("filename", [](const File& f) { return path_str(f.opened); })
      .def_readonly("format", &File::format)
      .def("__reduce__", [](const File& f) { return reduce_node(f, true); })
      .def("__enter__", [](File& f) -> File& { return f; })
      .def("__exit__", [](File&, const py::args&) { return false; })
      .def("close", [](File&) {});

  bind_array(m);
  m.def("open", &open_path, "path"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(), "storage_options"_a = py::none(),
        "allow_outside"_a = py::none(),
        "Open a file of any format dudley reads, a local path or a URL (s3://, https://). "
        "layout: a Dudley layout for Dudley data (or for a file of another format, as `dudley "
        "layout` writes); order: byte order of '|' types; params: {name: value} for layout "
        "parameters; format: force a format; storage_options: for s3:// paths, fsspec's names "
        "(key, secret, token, anon, endpoint_url, profile, client_kwargs={endpoint_url, "
        "region_name}); allow_outside: folders that what the file names (HDF5 external links, "
        "external storage and virtual sources, ASDF sources) may also be read from, besides the "
        "file's own folder (\"/\": any).");
  m.def("_save", &save_tree, "obj"_a, "path"_a, "format"_a, "item_class"_a, "lossy"_a = false,
        "storage_options"_a = py::none(), "overwrite"_a = false);
  // dudley._reopen (python/dudley/__init__.py) calls this: pickle rebuilds objects by the
  // name of a Python function.
  m.def("_reopen_native", &reopen, "path"_a, "request"_a, "node_path"_a);
}

}  // namespace dudley::python
