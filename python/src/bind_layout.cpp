// dudley.check and dudley.fmt: Dudley layouts checked and formatted from Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "layout_tools.hpp"

#include "bindings.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {

void bind_layout(py::module_& m) {
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
}

}  // namespace dudley::python
