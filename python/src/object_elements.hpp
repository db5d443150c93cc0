// Arrays whose elements hold variable-length data (HDF5 vlen strings and sequences, Zarr
// strings, and compounds with such fields) as numpy object arrays: numpy has no type for
// them, so each variable-length value becomes a Python object, as h5py and zarr give them.
#pragma once

#include <pybind11/numpy.h>

#include <vector>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::python {

/// Whether elements of `type` hold variable-length values anywhere (itself, a field, a
/// sub-array): such arrays are read into numpy object arrays.
bool holds_objects(const DType& type);

/// `data` (elements of `type`, native byte order, any strides) as a numpy array of `shape`
/// and `dtype` (numpy_dtype(type)): each variable-length text a str, each other
/// variable-length value a one-dimensional numpy array of its base type, compounds filled
/// field by field. Nothing of `data` is kept: the objects own copies.
pybind11::array objects_to_numpy(const NDArray& data, const pybind11::dtype& dtype,
                                 const std::vector<int64_t>& shape);

/// `data`, an array of object or region references (DType::reference), as a numpy object
/// array of its shape: what each points to, as `references` records it (an object's path, a
/// region's {"target", "start", "opposite"}), None for a null reference or one not recorded.
pybind11::array references_to_numpy(const NDArray& data, const model::ReferenceTable* references);

}  // namespace dudley::python
