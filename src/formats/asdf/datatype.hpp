// ASDF `datatype` <-> DType, in one place: the scalar names of core/ndarray (int8 ...
// complex128, bool8, float16 of ndarray-1.1.0), fixed strings `[ascii, N]` and `[ucs4, N]`,
// and structured types (nested, per-field byte order, sub-array shapes, unnamed fields).
#pragma once

#include <string>

#include "dudley/core/dtype.hpp"
#include "dudley/model/value.hpp"
#include "dudley/text/yaml.hpp"

namespace dudley::asdf {

/// The DType an ndarray's `datatype` node names, its multi-byte parts in `order` (the
/// array's `byteorder`) unless a field says otherwise. Fields are packed; unnamed fields
/// are called f0, f1, ... by their position, as numpy does. Throws Error(kType) at the node
/// for anything else (an unknown name, a negative length, a type beyond 2^40 bytes). Each
/// node visited, aliases expanded, is taken from `budget` (yaml::ExpansionLimitError when spent):
/// a few hundred bytes of aliases cannot make 10^9 fields.
DType datatype_from_yaml(const yaml::YamlNode& node, ByteOrder order, const std::string& path,
                         yaml::ExpansionBudget& budget);

/// The `datatype` value that describes `type` (whose byte order is `order` for the array
/// as a whole; fields of another order say theirs). Throws Error(kType) for types ASDF
/// cannot hold (pointers, enums, vlen, UTF-8/16 text...), naming the type; float16 only
/// when `float16_allowed` (ndarray-1.1.0).
model::Value datatype_to_value(const DType& type, ByteOrder order, bool float16_allowed = false);

/// The byte order to write as the array's `byteorder` for `type`: its own when it has one,
/// else (one-byte types, ascii, structs whose fields all say theirs) "big", as the
/// reference library writes.
ByteOrder array_byte_order(const DType& type);

}  // namespace dudley::asdf
