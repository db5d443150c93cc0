// Dudley's DType as a numpy dtype: the dtype `a[...]` returns and `Array.dtype` shows.
#pragma once

#include <pybind11/numpy.h>

#include "dudley/core/dtype.hpp"

namespace dudley::python {

/// The numpy dtype of `type` in native byte order (what reads return): structured for
/// compounds (fields at their offsets), a sub-array dtype for fixed arrays. Throws Error
/// (kType) for types numpy has no dtype for (pointers, variable-length, references).
pybind11::dtype numpy_dtype(const DType& type);

/// The same keeping the stored byte order ("<f8" or ">f8"): what `Array.dtype` reports.
pybind11::dtype stored_numpy_dtype(const DType& type);

}  // namespace dudley::python
