// The native halves of dudley.Writer and dudley.FamilyWriter (python/dudley/_writer.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "writer.hpp"

#include "bindings.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {

void bind_writer(py::module_& m) {
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
}

}  // namespace dudley::python
