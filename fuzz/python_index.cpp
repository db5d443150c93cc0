// The Python module's index parser (python/src/selection.cpp) against numpy's own indexing:
// the input builds an array shape and a Python index (integers of any size, slices with
// any bounds, None, Ellipsis, booleans, numpy scalars and arrays, lists, floats, nested
// tuples). The parser either raises a Python exception (IndexError, ValueError, TypeError,
// or what an object's __index__ raised) or gives a selection that numpy agrees with: the
// same result shape, and the same elements, compared on an array of element numbers.
// Anything else (a C++ exception escaping, a crash, a sanitizer report) is a finding.
#include <pybind11/embed.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "selection.hpp"

namespace py = pybind11;

namespace {

// Reads the fuzz input a byte (or 8) at a time; zeros past its end.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  int64_t int64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return static_cast<int64_t>(v);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// An integer: small ones near the array's extents most of the time, else any int64, or
// one beyond 64 bits (Python ints have no bound).
py::object integer(Bytes& in) {
  const uint8_t how = in.byte();
  if (how < 160) return py::int_(static_cast<int>(how % 16) - 8);
  if (how < 220) return py::int_(in.int64());
  const py::object two = py::int_(2);
  py::object big = two.attr("__pow__")(py::int_(63 + (how % 16)));
  return how & 1 ? py::object(big.attr("__neg__")()) : big;
}

py::object entry(Bytes& in, int depth) {
  const py::module_ np = py::module_::import("numpy");
  switch (in.byte() % 14) {
    case 0:
      return py::none();
    case 1:
      return py::ellipsis();
    case 2:
    case 3:
    case 4:
      return integer(in);
    case 5:
    case 6:
    case 7: {
      const uint8_t present = in.byte();
      py::object parts[3];
      for (int k = 0; k < 3; ++k) parts[k] = (present >> k) & 1 ? integer(in) : py::none();
      return py::reinterpret_steal<py::object>(
          PySlice_New(parts[0].ptr(), parts[1].ptr(), parts[2].ptr()));
    }
    case 8:
      return py::bool_(in.byte() & 1);
    case 9:  // numpy scalars and 0-d arrays of several kinds
      switch (in.byte() % 5) {
        case 0:
          return np.attr("int64")(integer(in).attr("__and__")(py::int_(0xffff)));
        case 1:
          return np.attr("array")(static_cast<int>(in.byte() % 8) - 4);
        case 2:
          return np.attr("bool_")(in.byte() & 1);
        case 3:
          return np.attr("array")(in.byte() & 1);
        default:
          return np.attr("float64")(1.5);
      }
    case 10: {  // arrays and lists of integers or booleans
      py::list items;
      const int n = in.byte() % 4;
      const bool booleans = in.byte() & 1;
      for (int i = 0; i < n; ++i) {
        if (booleans) {
          items.append(py::bool_(in.byte() & 1));
        } else {
          items.append(py::int_(static_cast<int>(in.byte() % 6) - 3));
        }
      }
      return in.byte() & 1 ? py::object(np.attr("array")(items)) : py::object(items);
    }
    case 11:
      return depth < 2 ? py::object(py::make_tuple(entry(in, depth + 1), entry(in, depth + 1)))
                       : py::object(py::none());
    case 12:
      return py::float_(0.5);
    default:
      return py::str("x");
  }
}

void finding(const std::string& what) {
  std::fprintf(stderr, "python_index: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static py::scoped_interpreter interpreter;
  py::module_::import("numpy");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  // At most 4 dimensions and 10 entries: numpy's results stay within its 32 dimensions.
  std::vector<int64_t> shape(in.byte() % 5);
  uint64_t elements = 1;
  bool huge = false;  // at most one huge dimension: numpy's sizes stay below 2^63
  for (int64_t& d : shape) {
    const uint8_t b = in.byte();
    d = b < 250 || huge ? b % 7 : int64_t{1} << (b - 250 + 40);  // huge: a view, no memory
    huge = huge || d > 6;
  }
  for (int64_t d : shape) {
    const auto n = static_cast<uint64_t>(d);  // saturating: only "small or not" matters
    elements = n != 0 && elements > UINT64_MAX / n ? UINT64_MAX : elements * n;
  }
  for (int64_t d : shape) {
    if (d == 0) elements = 0;
  }
  const int n = in.byte() % 11;
  py::object index;
  try {
    py::list parts;
    for (int i = 0; i < n; ++i) parts.append(entry(in, 0));
    index = n == 1 && (in.byte() & 1) ? py::object(parts[0]) : py::object(py::tuple(parts));
  } catch (const py::error_already_set&) {
    return 0;  // numpy refused to make the object itself
  }
  const py::module_ np = py::module_::import("numpy");
  dudley::python::Selection selection;
  try {
    selection = dudley::python::selection_of(index, shape);
  } catch (const py::error_already_set&) {
    return 0;  // an exception raised by an object's __index__, passed on
  } catch (const py::builtin_exception&) {
    return 0;  // IndexError, ValueError, TypeError: what numpy users catch
  }
  // The parser accepted it: numpy must read the same shape, and, where the array is small
  // enough to number its elements, the same elements in the same order.
  const py::tuple dims = py::cast(shape);
  py::object numbered;
  if (elements <= 4096) {
    numbered = np.attr("arange")(elements).attr("reshape")(dims);
  } else {
    numbered = np.attr("broadcast_to")(np.attr("zeros")(py::tuple()), dims);
  }
  // numpy reads a 0-d integer array as an advanced index (a copy: of a huge view, too much
  // memory) that selects what the integer does: numpy is given the integer.
  const py::object numpy_index = [&]() -> py::object {
    if (!py::isinstance<py::tuple>(index) && !py::isinstance<py::array>(index)) return index;
    py::list parts;
    const py::tuple entries = py::isinstance<py::tuple>(index)
                                  ? py::reinterpret_borrow<py::tuple>(index)
                                  : py::make_tuple(index);
    for (py::handle e : entries) {
      parts.append(py::isinstance<py::array>(e)
                       ? py::object(py::int_(py::reinterpret_borrow<py::object>(e)))
                       : py::reinterpret_borrow<py::object>(e));
    }
    return py::isinstance<py::tuple>(index) ? py::object(py::tuple(parts)) : py::object(parts[0]);
  }();
  py::object expected;
  try {
    expected = numbered[numpy_index];
  } catch (const py::error_already_set& e) {
    finding("accepted an index numpy refuses: " + py::repr(index).cast<std::string>() + " (" +
            e.what() + ")");
  }
  const std::vector<int64_t> expected_shape =
      py::cast<std::vector<int64_t>>(np.attr("shape")(expected));
  if (expected_shape != selection.result) {
    finding("shape differs from numpy's for " + py::repr(index).cast<std::string>());
  }
  if (elements > 4096) return 0;
  // The elements the slab names, in C order of its result, against numpy's.
  const dudley::Hyperslab& slab = selection.slab;
  std::vector<int64_t> at(slab.count.size(), 0);
  std::vector<int64_t> got;
  uint64_t total = 1;
  for (int64_t c : slab.count) total *= static_cast<uint64_t>(c);
  for (uint64_t k = 0; k < total; ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < at.size(); ++d)
      flat = flat * shape[d] + slab.start[d] + at[d] * slab.step(d);
    got.push_back(flat);
    for (size_t d = at.size(); d-- > 0;) {
      if (++at[d] < slab.count[d]) break;
      at[d] = 0;
    }
  }
  const std::vector<int64_t> want =
      py::cast<std::vector<int64_t>>(np.attr("ravel")(expected).attr("tolist")());
  if (got != want)
    finding("elements differ from numpy's for " + py::repr(index).cast<std::string>());
  return 0;
}
