// A JSON-like attribute value as a typed array, for formats whose attributes are typed
// (HDF5, NDL): what a scalar or a list of scalars of one kind is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/value.hpp"

namespace dudley::model {

/// `value` as an array: a bool, integer (int64, or uint64 above its range), float (float64)
/// or string (variable-length UTF-8) scalar, or a list of those of one kind (integers and
/// floats together: float64) as a 1-D array. nullopt, with `why` saying what the value is,
/// for maps, nulls and mixed lists.
std::optional<NDArray> value_as_array(const Value& value, std::string& why);

/// A typed array as a JSON-like value, for formats whose attributes are JSON (Zarr, ASDF
/// trees): one element of rank 0 or 1 as a scalar, others as lists nested by the shape;
/// bools, integers, floats, fixed text and UTF-8 strings. The element type beyond that
/// (float32, int16) is not kept. nullopt for other types (structures, complex, bytes).
std::optional<Value> array_as_value(const NDArray& array);

/// The values of an array of `dims` in C order (`flat`) as lists nested by the shape (a
/// 0-d array's one value as itself; null for none).
Value nest_by_shape(ValueList flat, const std::vector<int64_t>& dims);

}  // namespace dudley::model
