#include "selection.hpp"

#include <string>

#include "dudley/core/error.hpp"

namespace py = pybind11;

namespace dudley::python {
namespace {

enum class Kind { kInteger, kSlice, kEllipsis, kNewAxis };

// One index entry as Hyperslab::parse's text.
std::string entry_text(py::handle item, Kind& kind) {
  if (item.is_none()) {
    kind = Kind::kNewAxis;
    return {};
  }
  if (item.ptr() == Py_Ellipsis) {
    kind = Kind::kEllipsis;
    return "...";
  }
  if (PyBool_Check(item.ptr())) {
    throw py::index_error("boolean indices are not basic indexing (read the array, then index it)");
  }
  if (PySlice_Check(item.ptr())) {
    kind = Kind::kSlice;
    auto part = [&](const char* name) {
      py::object v = item.attr(name);
      return v.is_none() ? std::string() : std::to_string(py::cast<int64_t>(py::int_(v)));
    };
    return part("start") + ":" + part("stop") + ":" + part("step");
  }
  if (PyIndex_Check(item.ptr())) {
    kind = Kind::kInteger;
    return std::to_string(
        py::cast<int64_t>(py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()))));
  }
  throw py::index_error(
      "only integers, slices, Ellipsis, None and tuples of them are basic indices (read the "
      "array, then index it with arrays or lists)");
}

}  // namespace

Selection selection_of(py::handle index, const std::vector<int64_t>& shape) {
  py::tuple entries = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index)
                                                       : py::make_tuple(index);
  std::string text = "[";
  std::vector<Kind> kinds;
  size_t consumed = 0;  // dimensions taken by integers and slices
  for (py::handle item : entries) {
    Kind kind = Kind::kInteger;
    const std::string part = entry_text(item, kind);
    kinds.push_back(kind);
    if (kind == Kind::kNewAxis) continue;
    if (kind != Kind::kEllipsis) ++consumed;
    if (text.size() > 1) text += ", ";
    text += part;
  }
  text += "]";
  Selection s;
  try {
    s.slab = text == "[]" ? Hyperslab::all(shape) : Hyperslab::parse(text, shape);
  } catch (const Error& e) {
    throw py::index_error(e.message());
  }
  // numpy's shape: each new axis where it stands among the dimensions the others give.
  const std::vector<int64_t> kept = s.slab.result_shape();
  const size_t by_ellipsis = consumed <= shape.size() ? shape.size() - consumed : 0;
  size_t next = 0;  // the next dimension of `kept` to place
  for (Kind kind : kinds) {
    size_t gives = 0;
    if (kind == Kind::kSlice) gives = 1;
    if (kind == Kind::kEllipsis) gives = by_ellipsis;
    if (kind == Kind::kNewAxis) {
      s.result.push_back(1);
      continue;
    }
    for (size_t k = 0; k < gives && next < kept.size(); ++k) s.result.push_back(kept[next++]);
  }
  while (next < kept.size()) s.result.push_back(kept[next++]);  // dimensions not indexed
  return s;
}

}  // namespace dudley::python
