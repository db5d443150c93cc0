#include "borrowed_array.hpp"

#include <memory>
#include <vector>

#include "numpy_dtype.hpp"

namespace py = pybind11;

namespace dudley::python {

NDArray borrow_array(const py::array& array) {
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
