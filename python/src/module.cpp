// dudley._native, the compiled half of the Python package `dudley` (python/dudley/): any
// format the library reads, opened h5py-style, arrays read into numpy through numpy's basic
// indexing, and written from numpy. Formats need no Python code: everything goes through the
// format registry and the model. This file only binds; the work is in nodes (trees, arrays,
// open), family, save, writer and layout_tools; the classes are bound by class in bind_*.cpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"

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
  using namespace dudley::python;
  m.doc() =
      "Open any file dudley reads (Dudley layouts, ASDF, Zarr, Avro, HDF5, NDL, .npy) "
      "h5py-style; arrays read into numpy with numpy's basic indexing.";
  bind_errors(m);
  bind_nodes(m);
  bind_layout(m);
  bind_family(m);
  bind_writer(m);
  refuse_bare_new(m.attr("Group"), "Group", "index a File (f[\"g\"])");
  refuse_bare_new(m.attr("File"), "File", "use dudley.open(path)");
  refuse_bare_new(m.attr("Array"), "Array", "index a File (f[\"x\"])");
  refuse_bare_new(m.attr("Diagnostic"), "Diagnostic", "dudley.check(layout) returns them");
  refuse_bare_new(m.attr("Family"), "Family", "use dudley.open_family(pattern)");
  refuse_bare_new(m.attr("_Writer"), "_Writer", "use dudley.Writer(layout, path)");
  refuse_bare_new(m.attr("_FamilyWriter"), "_FamilyWriter",
                  "use dudley.FamilyWriter(layout, stem)");
  m.attr("__version__") = DUDLEY_VERSION;
}
