#include "borrowed_array.hpp"

#include <memory>
#include <string>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/core/vlen.hpp"
#include "numpy_dtype.hpp"

namespace py = pybind11;

namespace dudley::python {

namespace {

// An object array of str (UTF-8 text) or of bytes (ASCII text, as h5py stores bytes) as an
// array of variable-length strings, copied: numpy holds no bytes of its own for them.
NDArray objects_as_strings(const py::array& array) {
  const py::array flat = py::array(array.attr("ravel")("C"));
  const auto n = static_cast<size_t>(flat.size());
  bool strings = true;
  bool bytes = true;
  for (size_t i = 0; i < n; ++i) {
    const py::object item = flat[py::int_(i)];
    strings = strings && py::isinstance<py::str>(item);
    bytes = bytes && py::isinstance<py::bytes>(item);
    if (!strings && !bytes) {
      throw Error(ErrorCategory::kType,
                  "an object array is written when it holds only str (as UTF-8 strings) or only "
                  "bytes (as ASCII strings); element " +
                      std::to_string(i) + " is " +
                      py::str(py::type::handle_of(item).attr("__name__")).cast<std::string>());
    }
  }
  VLenArrayBuilder built(
      DType::vlen(DType::text(strings ? TextEncoding::kUtf8 : TextEncoding::kAscii)), n);
  for (size_t i = 0; i < n; ++i) {
    const py::object item = flat[py::int_(i)];
    const std::string text = strings ? item.cast<std::string>() : std::string(py::bytes(item));
    built.append(text.data(), text.size());
  }
  return built.finish(Shape(std::vector<int64_t>(array.shape(), array.shape() + array.ndim())));
}

}  // namespace

NDArray borrow_array(const py::array& array) {
  if (array.dtype().kind() == 'O') return objects_as_strings(array);
  const DType type = dtype_from_numpy(array.dtype());
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  std::vector<int64_t> strides(array.strides(), array.strides() + array.ndim());
  // The writer reads the memory with the GIL released, possibly on other threads; the
  // reference to the array is dropped under the GIL.
  std::shared_ptr<void> keep(new py::object(array), [](void* held) {
    py::gil_scoped_acquire locked;
    delete static_cast<py::object*>(held);
  });
  return NDArray::borrow(const_cast<void*>(array.data()), type, Shape(shape), std::move(strides),
                         std::move(keep));
}

NDArray borrow_value(py::handle value) {
  py::array array = py::module_::import("numpy").attr("asarray")(value);
  return borrow_array(array);
}

}  // namespace dudley::python
