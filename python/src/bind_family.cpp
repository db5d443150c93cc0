// dudley.Family and dudley.open_family: file families, members opened on use.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "family.hpp"
#include "text_objects.hpp"

#include "bindings.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {

void bind_family(py::module_& m) {
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
                               py::list out;
                               for (const FamilyFile& member : f.members)
                                 out.append(path_str(member.path));
                               return out;
                             })
      .def(
          "_subset",
          [](const Family& f, const std::vector<int64_t>& indexes) {
            // The members `indexes` name, as a family of their own (Dask reads a few at once).
            Family out;
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
             for (const FamilyFile& member : f.members)
               members.append(
                   py::make_tuple(name_object(member.path), request_state(member.request)));
             return py::make_tuple(py::module_::import("dudley").attr("_family"),
                                   py::make_tuple(members));
           })
      .def("read", &Family::read, "path"_a, "index"_a = py::ellipsis(), "stack"_a = true,
           "Array `path` (indexed by `index`) of every member: stacked along a new first axis "
           "when all have one shape and dtype (and stack), else a list.");
  m.def(
      "_family_native",
      [](const py::list& members) {
        Family f;
        for (const py::handle member : members) {
          const auto pair = member.cast<py::tuple>();
          f.members.push_back(
              {pair[0].cast<std::string>(), request_from_state(pair[1].cast<py::tuple>())});
        }
        return f;
      },
      "members"_a);
  m.def("open_family", &open_family, "pattern"_a, "layout"_a = py::none(), "order"_a = py::none(),
        "params"_a = py::none(), "format"_a = py::none(),
        "A family: a glob pattern ('run_*.h5', name order) or a family index "
        "(run.index.bin); the other arguments as open() takes them, for every member.");
}

}  // namespace dudley::python
