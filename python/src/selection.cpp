#include "selection.hpp"

#include <climits>
#include <string>

#include "dudley/core/error.hpp"
#include "text_objects.hpp"

namespace py = pybind11;

namespace dudley::python {
namespace {

enum class Kind { kInteger, kSlice, kEllipsis, kNewAxis };

// A Python integer (or an object with __index__) as int64: nullopt when it lies beyond
// 64 bits, `sign` then saying on which side. A failing __index__ propagates its exception.
std::optional<int64_t> as_int64(py::handle item, int& sign) {
  py::object number = py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()));
  if (!number) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow != 0) {
    sign = overflow;
    return std::nullopt;
  }
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

// A slice bound: beyond 64 bits it is clamped (a slice selects the same elements with any
// bound past the array's ends, as Python's slice.indices does).
std::string bound_text(py::handle value) {
  if (value.is_none()) return {};
  if (!PyIndex_Check(value.ptr())) {
    throw py::type_error("slice indices must be integers or None or have an __index__ method");
  }
  int sign = 0;
  const std::optional<int64_t> v = as_int64(value, sign);
  return std::to_string(v ? *v : (sign > 0 ? INT64_MAX : INT64_MIN));
}

// A 0-d numpy array as an index (others are advanced indexing, dudley/_fancy.py): an integer
// array is an integer (returns normally), any other type is refused as numpy refuses it.
void check_numpy_index(const py::array& a) {
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw py::index_error("arrays used as indices must be of integer (or boolean) type");
  }
}

// Whether `item` is an advanced index entry (a list, a boolean, an array other than a 0-d
// integer one), which dudley/_fancy.py reads, not this parser.
bool is_advanced_entry(py::handle item) {
  if (PyList_Check(item.ptr()) || PyBool_Check(item.ptr())) return true;
  if (py::isinstance<py::array>(item)) {
    const py::array a = py::reinterpret_borrow<py::array>(item);
    return a.ndim() != 0 || a.dtype().kind() == 'b';
  }
  return py::isinstance(item, py::module_::import("numpy").attr("bool_"));
}

// One index entry as Hyperslab::parse's text.
// `axis`: the dimension the entry indexes when no ellipsis stands before it, else -1.
std::string entry_text(py::handle item, Kind& kind, int64_t axis,
                       const std::vector<int64_t>& shape) {
  if (item.is_none()) {
    kind = Kind::kNewAxis;
    return {};
  }
  if (item.ptr() == Py_Ellipsis) {
    kind = Kind::kEllipsis;
    return "...";
  }
  // Booleans are integers to Python but masks to numpy; lists and nested tuples are
  // sequences: advanced indexing, which Array::read hands to dudley._fancy first. Refused
  // here, so that this parser never reads one as something else.
  if (is_advanced_entry(item) || PyTuple_Check(item.ptr())) {
    throw py::index_error(
        "advanced index entry (an array, list, tuple or boolean): not a "
        "basic index");
  }
  if (PySlice_Check(item.ptr())) {
    kind = Kind::kSlice;
    const py::object step = item.attr("step");
    if (!step.is_none() && PyIndex_Check(step.ptr())) {
      int sign = 0;
      if (as_int64(step, sign) == int64_t{0}) throw py::value_error("slice step cannot be zero");
    }
    return bound_text(item.attr("start")) + ":" + bound_text(item.attr("stop")) + ":" +
           bound_text(item.attr("step"));
  }
  if (py::isinstance<py::array>(item)) check_numpy_index(py::reinterpret_borrow<py::array>(item));
  if (PyIndex_Check(item.ptr())) {
    kind = Kind::kInteger;
    int sign = 0;
    if (const std::optional<int64_t> v = as_int64(item, sign)) return std::to_string(*v);
    // numpy's words for an integer beyond every array's bounds.
    std::string where;
    if (axis >= 0 && static_cast<size_t>(axis) < shape.size()) {
      where = " for axis " + std::to_string(axis) + " with size " +
              std::to_string(shape[static_cast<size_t>(axis)]);
    }
    throw py::index_error("index " + py::str(item).cast<std::string>() + " is out of bounds" +
                          where);
  }
  const std::string type = py::str(py::type::handle_of(item).attr("__name__")).cast<std::string>();
  throw py::index_error(
      "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and tuples of "
      "them are valid indices, not " +
      type);
}

}  // namespace

bool is_advanced_index(py::handle index) {
  if (!PyTuple_Check(index.ptr())) return is_advanced_entry(index);
  for (py::handle item : py::reinterpret_borrow<py::tuple>(index)) {
    // A tuple inside an index tuple is a sequence of integers to numpy, as a list is.
    if (is_advanced_entry(item) || PyTuple_Check(item.ptr())) return true;
  }
  return false;
}

Selection selection_of(py::handle index, const std::vector<int64_t>& shape) {
  py::tuple entries = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index)
                                                       : py::make_tuple(index);
  // An index longer than any array could take is refused before it is read (the rank is at
  // most 64, numpy's 64 too), so a huge tuple costs nothing.
  if (entries.size() > 2 * shape.size() + 64) {
    throw py::index_error("too many indices: the array is " + std::to_string(shape.size()) +
                          "-dimensional, but " + std::to_string(entries.size()) + " were indexed");
  }
  std::string text = "[";
  std::vector<Kind> kinds;
  size_t consumed = 0;  // dimensions taken by integers and slices
  bool after_ellipsis = false;
  for (py::handle item : entries) {
    Kind kind = Kind::kInteger;
    const std::string part =
        entry_text(item, kind, after_ellipsis ? -1 : static_cast<int64_t>(consumed), shape);
    after_ellipsis = after_ellipsis || kind == Kind::kEllipsis;
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
    throw py::index_error(readable(e.message()));
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
