// numpy arrays handed to the library without a copy: the library's NDArray borrowing the
// array's memory, strides and byte order as they are, the array kept alive while it does.
#pragma once

#include <pybind11/numpy.h>

#include "dudley/core/ndarray.hpp"

namespace dudley::python {

/// An NDArray over `array`'s memory (any strides, any byte order, structured dtypes as
/// compounds); it holds a reference to `array`, released with the GIL taken whatever thread
/// drops the last copy. Throws Error(kType) for a dtype the library has no type for.
NDArray borrow_array(const pybind11::array& array);

/// `value` as a numpy array (numpy.asarray: lists, scalars and str too), then borrowed.
NDArray borrow_value(pybind11::handle value);

}  // namespace dudley::python
