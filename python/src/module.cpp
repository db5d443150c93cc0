// dudley._native, the compiled half of the Python package `dudley` (python/dudley/): any
// format the library reads, opened h5py-style, arrays read into numpy through numpy's basic
// indexing, and written from numpy. Formats need no Python code: everything goes through the
// format registry and the model. This file only binds; the work is in nodes (trees, arrays,
// open), family, save, writer and layout_tools.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "dudley/core/error.hpp"
#include "family.hpp"
#include "layout_tools.hpp"
#include "nodes.hpp"
#include "numpy_dtype.hpp"
#include "save.hpp"
#include "writer.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

// Objects of these classes come from open() and from each other, never from __new__ alone:
// one made so (`Array.__new__(Array)`) would hold no tree, and every method would read
// through a null pointer. __new__ refuses; pybind11 makes the objects it returns without
// calling it (it allocates them directly), so open() and the rest are unaffected.
void refuse_bare_new(py::handle cls, const std::string& name, const std::string& from) {
  py::cpp_function refuse(
      [name, from](const py::args&, const py::kwargs&) -> py::object {
        throw py::type_error("dudley." + name + " objects cannot be created directly: " + from);
      },
      py::name("__new__"));
  py::setattr(cls, "__new__", py::module_::import("builtins").attr("staticmethod")(refuse));
}

}  // namespace

PYBIND11_MODULE(_native, m) {
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
    py::tuple bases =
        builtin ? py::tuple(py::make_tuple(base, py::module_::import("builtins").attr(builtin)))
                : py::tuple(py::make_tuple(base));
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
  subclass(ErrorCategory::kLoss, "LossError", nullptr);
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11 takes this signature
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = by_category.at(e.category());
      // A LossError says every item it would lose: in the message, and as `lost`.
      const auto* loss = dynamic_cast<const LossError*>(&e);
      std::string text = loss ? e.report() : std::string(e.what());
      while (!text.empty() && text.back() == '\n') text.pop_back();
      py::object exc = py::handle(cls)(py::str(text));
      exc.attr("lost") = loss ? py::cast(loss->items()) : py::object(py::list());
      const Location& at = e.location();
      exc.attr("category") = std::string(to_string(e.category()));
      exc.attr("path") = at.path.empty() ? py::none() : py::cast(at.path);
      exc.attr("line") = at.line ? py::cast(at.line) : py::none();
      exc.attr("column") = at.column ? py::cast(at.column) : py::none();
      exc.attr("offset") = at.byte_offset ? py::cast(*at.byte_offset) : py::none();
      PyErr_SetObject(cls, exc.ptr());
    }
  });

  py::class_<Group>(m, "Group",
                    "A group (or list) of a file: members by name, h5py-style; a list's items "
                    "by position too, and iteration over a list gives its items.")
      .def("__getitem__",
           [](const Group& g, const std::string& key) { return wrap(lookup(g, key)); })
      .def("__getitem__",
           [](const Group& g, int64_t i) {
             if (g.node->kind == model::NodeKind::kArray) {
               // A file that is one array (.npy): the array is its root, f["/"].
               throw py::type_error("this file is one array: read it as f[\"/\"][...]");
             }
             if (g.node->kind != model::NodeKind::kList) {
               throw py::type_error(g.path + " is a group: its members are named, not numbered");
             }
             const auto n = static_cast<int64_t>(model::child_count(*g.node));
             if (i < -n || i >= n) {
               throw py::index_error(g.path + " has " + std::to_string(n) + " items, no " +
                                     std::to_string(i));
             }
             return wrap(lookup(g, std::to_string(i < 0 ? i + n : i)));
           })
      .def_property_readonly(
          "is_list", [](const Group& g) { return g.node->kind == model::NodeKind::kList; },
          "True for a list (items by position), False for a group (members by name)")
      .def("__contains__",
           [](const Group& g, const std::string& key) {
             return g.tree->find(key.starts_with("/") ? key : child_path(g.path, key)) != nullptr;
           })
      .def("keys", [](const Group& g) { return member_names(g); })
      .def("__iter__",
           [](const Group& g) {
             if (g.node->kind != model::NodeKind::kList) {
               return py::iter(py::cast(member_names(g)));
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
               out.append(py::make_tuple(k, wrap(lookup(g, k))));
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
               py::object r = fn(c.path.substr(g.path == "/" ? 1 : g.path.size() + 1), wrap(c));
               if (!r.is_none()) return r;
               if (c.node->kind != model::NodeKind::kArray) push_members(c);
             }
             return py::none();
           })
      .def_property_readonly("attrs", [](const Group& g) { return attributes(g.node->attributes); })
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
            return py::str(a.node->error.text());
          },
          "Why the array cannot be read (its reader's error, with the place), or None")
      .def_property_readonly("attrs", [](const Array& a) { return attributes(a.node->attributes); })
      .def_property_readonly("doc", [](const Array& a) { return a.node->doc; })
      .def_property_readonly("name", [](const Array& a) { return a.path; })
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
      .def(
          "_subset",
          [](const Family& f, const std::vector<int64_t>& indexes) {
            // The members `indexes` name, as a family of their own (Dask reads a few at once).
            Family out{{}, f.format};
            const auto n = static_cast<int64_t>(f.members.size());
            for (int64_t i : indexes) {
              if (i < -n || i >= n) throw py::index_error("no member " + std::to_string(i));
              out.members.push_back(f.members[static_cast<size_t>(i < 0 ? i + n : i)]);
            }
            return out;
          },
          "indexes"_a)
      .def("__reduce__",
           [](const Family& f) {
             // A family pickles as its members and how each is opened (paths, layout,
             // parameters), so Dask's worker processes read members as this process would.
             py::list members;
             for (const FamilyMember& member : f.members)
               members.append(py::make_tuple(member.path, member.given));
             return py::make_tuple(py::module_::import("dudley").attr("_family"),
                                   py::make_tuple(members, f.format));
           })
      .def("read", &Family::read, "path"_a, "index"_a = py::ellipsis(), "stack"_a = true,
           "Array `path` (indexed by `index`) of every member: stacked along a new first axis "
           "when all have one shape and dtype (and stack), else a list.");
  m.def(
      "_family_native",
      [](const std::vector<std::pair<std::string, GivenOptions>>& members,
         const std::optional<std::string>& format) {
        Family f{{}, format};
        for (const auto& [path, given] : members) f.members.push_back({path, given});
        return f;
      },
      "members"_a, "format"_a);
  m.def("open_family", &open_family, "pattern"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "A family: a glob pattern ('run_*.h5', name order) or a family index "
        "(run.index.bin); the other arguments as open() takes them, for every member.");
  m.def("_save", &save_tree, "obj"_a, "path"_a, "format"_a, "item_class"_a, "lossy"_a = false);
  // dudley._reopen (python/dudley/__init__.py) calls this: pickle rebuilds objects by the
  // name of a Python function.
  m.def("_reopen_native", &reopen, "path"_a, "given"_a, "format"_a, "node_path"_a);
  // The native halves of dudley.Writer and dudley.FamilyWriter (python/dudley/_writer.py).
  // Made by _make_writer (not __init__), so that no object of the class exists without its
  // C++ half (refuse_bare_new).
  py::class_<NativeWriter>(m, "_Writer")
      .def("set_param", &NativeWriter::set_param, "name"_a, "value"_a)
      .def("declared", &NativeWriter::declared, "path"_a)
      .def("write", &NativeWriter::write, "path"_a, "data"_a)
      .def("write_region", &NativeWriter::write_region, "path"_a, "data"_a, "index"_a)
      .def("write_instances", &NativeWriter::write_instances, "path"_a, "arrays"_a)
      .def("write_pointee", &NativeWriter::write_pointee, "key"_a, "data"_a)
      .def("append", &NativeWriter::append, "list_path"_a, "data"_a)
      .def("commit", &NativeWriter::commit)
      .def_property_readonly("committed", &NativeWriter::committed)
      .def("unwritten", &NativeWriter::unwritten,
           "Paths of the data items given no data yet (commit writes them as zeros)")
      .def_property_readonly("layout", &NativeWriter::layout_text);
  py::class_<NativeFamilyWriter>(m, "_FamilyWriter")
      .def("add", &NativeFamilyWriter::add)
      .def("finish", &NativeFamilyWriter::finish);
  m.def(
      "_make_writer",
      [](const std::string& layout, const std::string& path,
         const std::optional<std::string>& order, bool embed_layout, bool fsync) {
        return NativeWriter(layout, path, WriterOptions{order, embed_layout, fsync});
      },
      "layout"_a, "path"_a, "order"_a = py::none(), "embed_layout"_a = false, "fsync"_a = false);
  m.def(
      "_make_family_writer",
      [](const std::string& layout, const std::string& stem,
         const std::optional<std::string>& order, bool embed_layout, bool fsync,
         bool params_in_files) {
        return NativeFamilyWriter(layout, stem, WriterOptions{order, embed_layout, fsync},
                                  params_in_files);
      },
      "layout"_a, "stem"_a, "order"_a = py::none(), "embed_layout"_a = false, "fsync"_a = false,
      "params_in_files"_a = true);
  refuse_bare_new(m.attr("Group"), "Group", "index a File (f[\"g\"])");
  refuse_bare_new(m.attr("File"), "File", "use dudley.open(path)");
  refuse_bare_new(m.attr("Array"), "Array", "index a File (f[\"x\"])");
  refuse_bare_new(m.attr("Diagnostic"), "Diagnostic", "dudley.check(layout) returns them");
  refuse_bare_new(m.attr("Family"), "Family", "use dudley.open_family(pattern)");
  refuse_bare_new(m.attr("_Writer"), "_Writer", "use dudley.Writer(layout, path)");
  refuse_bare_new(m.attr("_FamilyWriter"), "_FamilyWriter",
                  "use dudley.FamilyWriter(layout, stem)");
  m.def("open", &open_path, "path"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "Open a file of any format dudley reads. layout: a Dudley layout for Dudley data (or "
        "for a file of another format, as `dudley layout` writes); order: byte order of '|' "
        "types; params: {name: value} for layout parameters; format: force a format.");
  m.attr("__version__") = DUDLEY_VERSION;
}
