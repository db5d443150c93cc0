// Dudley's DType as a numpy dtype (the dtype `a[...]` returns and `Array.dtype` shows), and a
// numpy dtype as a DType (what dudley.save and dudley.Writer are given).
#pragma once

#include <pybind11/numpy.h>

#include "dudley/core/dtype.hpp"

namespace dudley::python {

/// The numpy dtype of `type` in native byte order (what reads return): structured for
/// compounds (fields at their offsets), a sub-array dtype for fixed arrays. Throws Error
/// (kType) for types numpy has no dtype for (pointers, references); variable-length values
/// are objects ("O").
pybind11::dtype numpy_dtype(const DType& type);

/// The same keeping the stored byte order ("<f8" or ">f8"): what `Array.dtype` reports.
pybind11::dtype stored_numpy_dtype(const DType& type);

/// The DType of numpy dtype `dtype`, byte order included: structured dtypes become compounds
/// (fields at their offsets, sub-array fields with their shapes), a sub-array dtype a fixed
/// array. Throws Error(kType) for kinds the library has no type for (objects, datetimes).
DType dtype_from_numpy(const pybind11::dtype& dtype, int depth = 0);

}  // namespace dudley::python
