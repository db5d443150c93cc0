// The Python module `dudley`: any format the library reads, opened h5py-style, arrays
// read into numpy through numpy's basic indexing. Formats need no Python code: everything
// goes through the format registry and the model. This file only binds; the work is in
// nodes (trees, arrays, open), family, save and layout_tools.
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

#include "dudley/core/error.hpp"
#include "family.hpp"
#include "layout_tools.hpp"
#include "nodes.hpp"
#include "numpy_dtype.hpp"
#include "save.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

PYBIND11_MODULE(dudley, m) {
  using namespace dudley;
  using namespace dudley::python;
  m.doc() =
      "Open any file dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy) "
      "h5py-style; arrays read into numpy with numpy's basic indexing.";
  // dudley.Error, and a subclass for each category, some also the builtin a Python user
  // would catch (FileError is an OSError, UsageError a ValueError).
  // The classes live as long as the interpreter: held as leaked references, not objects
  // whose destructors would run after it is gone.
  static PyObject* error = py::exception<Error>(m, "Error").inc_ref().ptr();
  static std::map<ErrorCategory, PyObject*> by_category;
  auto subclass = [&](ErrorCategory category, const char* name, const char* builtin) {
    py::handle base(error);
    py::tuple bases = builtin ? py::make_tuple(base, py::module_::import("builtins").attr(builtin))
                              : py::make_tuple(base);
    const std::string qualified = std::string("dudley.") + name;
    PyObject* cls = PyErr_NewException(qualified.c_str(), bases.ptr(), nullptr);
    if (cls == nullptr) throw py::error_already_set();
    m.attr(name) = py::handle(cls);
    by_category[category] = cls;
  };
  subclass(ErrorCategory::kSyntax, "ParseError", nullptr);
  subclass(ErrorCategory::kSemantic, "SemanticError", nullptr);
  subclass(ErrorCategory::kType, "DataTypeError", nullptr);
  subclass(ErrorCategory::kData, "DataError", nullptr);
  subclass(ErrorCategory::kIo, "FileError", "OSError");
  subclass(ErrorCategory::kUsage, "UsageError", "ValueError");
  subclass(ErrorCategory::kLimit, "LimitError", nullptr);
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11 takes this signature
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = by_category.at(e.category());
      py::object exc = py::handle(cls)(py::str(e.what()));
      const Location& at = e.location();
      exc.attr("category") = std::string(to_string(e.category()));
      exc.attr("path") = at.path.empty() ? py::none() : py::cast(at.path);
      exc.attr("line") = at.line ? py::cast(at.line) : py::none();
      exc.attr("column") = at.column ? py::cast(at.column) : py::none();
      exc.attr("offset") = at.byte_offset ? py::cast(*at.byte_offset) : py::none();
      PyErr_SetObject(cls, exc.ptr());
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
           [](const Group& g, const py::function& fn) -> py::object {
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
      .def("__repr__", [](const Group& g) { return tree_repr(g, 40, false); })
      .def("_repr_html_", [](const Group& g) { return tree_repr(g, 200, true); })
      .def("__reduce__", [](const Group& g) { return reduce_node(g, false); });

  py::class_<File, Group>(m, "File", "An open file (dudley.open).")
      .def_readonly("filename", &File::opened)
      .def_readonly("format", &File::format)
      .def("__reduce__", [](const File& f) { return reduce_node(f, true); })
      .def("__enter__", [](File& f) -> File& { return f; })
      .def("__exit__", [](File&, const py::args&) { return false; })
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
          [](const Array& a, const py::object& dtype, const py::object&) {
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
            const std::vector<int64_t> unit = a.node->data->read_unit().shape;
            return unit.empty() ? py::object(py::none()) : py::object(py::tuple(py::cast(unit)));
          },
          "The shape a read decodes whole (a chunk or block), or None: what Dask chunks follow")
      .def("__reduce__", [](const Array& a) { return reduce_node(a, false); })
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
  // xarray's backend, built when xarray asks for it (module __getattr__): `import dudley`
  // does not import xarray. Found through the entry point in dudley-*.dist-info beside
  // the module (python/CMakeLists.txt writes one into the build tree).
  py::exec(R"py(
def _xarray_backend():
    import numpy as np
    import xarray as xr
    from xarray.backends import BackendArray, BackendEntrypoint
    from xarray.core import indexing

    class DudleyArray(BackendArray):
        def __init__(self, array):
            self.array = array
            self.shape = array.shape
            self.dtype = array.dtype.newbyteorder("=") if array.dtype.byteorder in "<>" else array.dtype

        def __getitem__(self, key):
            return indexing.explicit_indexing_adapter(
                key, self.shape, indexing.IndexingSupport.BASIC, self.array.__getitem__)

    class DudleyBackend(BackendEntrypoint):
        """xarray.open_dataset(path, engine="dudley"): every array of any format dudley
        reads as a lazy variable, named by its path, with its attributes and dimension names."""
        description = "Any format dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy)"
        open_dataset_parameters = ("filename_or_obj", "drop_variables", "layout")

        def open_dataset(self, filename_or_obj, *, drop_variables=None, layout=None):
            f = open(str(filename_or_obj), layout=layout)
            variables, drop = {}, set(drop_variables or ())
            arrays = [("/", f["/"])] if not len(f) and f["/"].__class__.__name__ == "Array" else []
            f.visititems(lambda name, obj: arrays.append((name, obj)) if obj.__class__.__name__ == "Array" else None)
            for name, a in arrays:
                name = name.strip("/") or "data"
                if name in drop:
                    continue
                attrs = dict(a.attrs)
                dims = attrs.pop("dimension_names", None)
                attrs.pop("dimension_coordinates", None)
                if not isinstance(dims, list) or len(dims) != a.ndim:
                    dims = [None] * a.ndim
                dims = [d if isinstance(d, str) else f"{name}_dim_{i}" for i, d in enumerate(dims)]
                data = indexing.LazilyIndexedArray(DudleyArray(a))
                variables[name] = xr.Variable(dims, data, attrs=attrs)
            return xr.Dataset(variables, attrs=dict(f.attrs))

        def guess_can_open(self, filename_or_obj):
            try:
                open(str(filename_or_obj))
                return True
            except Exception:
                return False

    return DudleyBackend

def __getattr__(name):
    if name == "XarrayBackend":
        backend = _xarray_backend()
        globals()["XarrayBackend"] = backend
        return backend
    raise AttributeError(f"module 'dudley' has no attribute {name!r}")
)py",
           m.attr("__dict__"));
  m.def("_reopen_native", &reopen, "path"_a, "given"_a, "format"_a, "node_path"_a);
  // pickle names the function that rebuilds an object: a Python function of this module
  // (pybind11's own functions cannot be pickled by name).
  py::exec(R"(
def _reopen(path, given, format, node_path):
    """Opens a pickled file, group or array again (pickle calls it)."""
    return _reopen_native(path, given, format, node_path)
)",
           m.attr("__dict__"));
  m.def(
      "to_dask",
      [](const Array& a, const py::object& chunks) {
        // Chunks follow the array's read unit (a chunk read whole), else Dask's own choice;
        // reads come back in native byte order, which the meta says.
        py::module_ np = py::module_::import("numpy");
        py::object unit = py::cast(a).attr("read_unit");
        py::object use = !chunks.is_none() ? chunks : unit.is_none() ? py::str("auto") : unit;
        std::vector<int64_t> empty(a.node->shape.size(), 0);
        py::object meta = np.attr("empty")(py::tuple(py::cast(empty)), numpy_dtype(a.node->dtype));
        return py::module_::import("dask.array")
            .attr("from_array")(py::cast(a), "chunks"_a = use, "meta"_a = meta, "asarray"_a = false,
                                "fancy"_a = false, "lock"_a = false);
      },
      "array"_a, "chunks"_a = py::none(),
      "A dask.array over `array`: chunks follow its read unit (or `chunks`); it pickles by "
      "path, so the graph runs on dask.distributed worker processes too.");
  m.def("open", &open_path, "path"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "Open a file of any format dudley reads. layout: a Dudley layout for Dudley data (or "
        "for a file of another format, as `dudley layout` writes); order: byte order of '|' "
        "types; params: {name: value} for layout parameters; format: force a format.");
  m.attr("__version__") = DUDLEY_VERSION;
}
