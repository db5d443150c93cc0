// numpy's `descr`: the portable spelling of a numpy dtype that .npy headers and Zarr v2's
// `.zarray` both use (a typestr such as "<f8" or "|S5", or a list of fields
// [name, descr] / [name, descr, shape] for a structured dtype, padding as ["", "|V<n>"]).
// One reader and one writer of it, so that both formats map the same types the same way.
#pragma once

#include <string>

#include "dudley/core/dtype.hpp"
#include "dudley/model/value.hpp"

namespace dudley::model {

/// The DType a descr names: numbers and bool as from_typestr, S<n> and U<n> as one string
/// of n units per element, V<n> as n opaque bytes, a list of fields as a compound (fields
/// named "" of type V<n> are padding: they move the next field's offset), nested to at most
/// 32 levels. Throws Error(kType) without a location (the caller adds its file) for text
/// that is no typestr, objects ('O': numpy pickles them), and malformed field lists.
DType dtype_from_numpy_descr(const Value& descr);

/// The descr of `type`: a typestr (enums as their base integers; text as S<n> or U<n>), or
/// for a compound a list of fields in offset order with ["", "|V<n>"] where it has padding.
/// Throws Error(kType) naming the type for what numpy has no dtype for (vlen, references).
Value numpy_descr_of(const DType& type);

/// `descr` as the Python literal a .npy header holds ('<f8', or [('a', '<i4'), ...]).
std::string numpy_descr_literal(const Value& descr);

}  // namespace dudley::model
