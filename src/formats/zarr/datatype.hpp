// Zarr v3 `data_type` <-> DType, in one place: the core types (bool, int8..uint64,
// float16/32/64, complex64/128, r<N>), the registered extension types `string`
// (vlen-utf8) and `bytes` (vlen-bytes), and those zarr-python 3 writes: numpy.datetime64,
// numpy.timedelta64, fixed_length_utf32, null_terminated_bytes, raw_bytes and
// variable_length_bytes. Byte order is not part of a Zarr data type (the
// `bytes` codec carries it): the DType is made in the order the caller gives.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "dudley/core/dtype.hpp"

namespace dudley::zarr {

/// The DType named by `data_type` (a name, or an extension object {"name": ...} without
/// configuration) with multi-byte scalars in `order`. `string` is a vlen of UTF-8 text,
/// `bytes` a vlen of bytes. Throws Error(kType) naming `where` (the metadata file) for an
/// unknown name, an r<N> whose N is not a positive multiple of 8 (or beyond 2^31 bits),
/// or an object with a configuration or must_understand (data types may not have either).
DType data_type_from_json(const nlohmann::ordered_json& data_type, ByteOrder order,
                          const std::string& where);

/// The `data_type` name of `type` ("float32", "r24", "string"); Error(kType) naming the type
/// for what Zarr v3 cannot hold (structs, fixed text, pointers, enums...).
std::string data_type_name(const DType& type);

/// The `data_type` of `type` as zarr.json holds it: its name, or {"name", "configuration"}
/// for numpy.datetime64 and numpy.timedelta64.
nlohmann::ordered_json data_type_json(const DType& type);

/// Whether `type` is stored one element per fixed number of bytes (every core type), as
/// the `bytes` codec stores them; the extension types `string` and `bytes` are not.
bool fixed_size(const DType& type);

}  // namespace dudley::zarr
