// numpy basic indexing on a dudley array: the Python index as the Hyperslab to read and the
// shape numpy would give (np.newaxis included), so `a[i]` equals `np.asarray(a)[i]`.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "dudley/core/hyperslab.hpp"

namespace dudley::python {

struct Selection {
  Hyperslab slab;               ///< what is read
  std::vector<int64_t> result;  ///< the result's shape, new axes included
};

/// `index` (an integer, slice, Ellipsis, None, or a tuple of them) on an array of `shape`.
/// Throws pybind11::index_error for an index out of range or a kind of index that is not
/// basic: IndexError, as numpy users expect (advanced indexes go to is_advanced_index first).
Selection selection_of(pybind11::handle index, const std::vector<int64_t>& shape);

/// True when `index` (or an entry of an index tuple) is numpy advanced indexing: a list, a
/// boolean (Python's or numpy's), or a numpy array other than a 0-d integer array. Such an
/// index is read by dudley._fancy; the rest by selection_of.
bool is_advanced_index(pybind11::handle index);

}  // namespace dudley::python
