// YEP-113's `ndarray` record (shape: array<int>, typestr: string, data: bytes, version: int)
// in Avro binary: typestrs as `avro-resolutions.md` settles them, C-order data in the byte
// order its typestr names, decoded without copying the data where the caller allows.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "binary.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/ndarray.hpp"

namespace dudley::avro {

/// The record's schema, as writers emit it (with `"logicalType": "ndarray"`).
std::string_view ndarray_schema_json();

/// The element type of a typestr: `b1`, `i1 i2 i4 i8`, `u1 u2 u4 u8`, `f2 f4 f8`, `c8 c16`,
/// each after `<`, `>`, `|` or `=` (native). Throws Error(kType) naming any other.
DType dtype_of_typestr(std::string_view typestr);

/// The typestr a writer emits for `dtype`: little endian (`|` for one-byte types).
/// Error(kType) naming the type when the record has none for it (text, structs, ...).
std::string typestr_of(const DType& dtype);

/// The highest rank a record may claim.
inline constexpr uint64_t kMaxRank = 64;

/// A decoded record: its array (native byte order), the element type as stored (its
/// typestr's byte order), and where its data bytes begin (BinaryReader::offset()).
struct DecodedNdarray {
  NDArray array;
  DType stored;
  uint64_t data_offset = 0;
};

/// Decodes one record at `in`'s position. When `keep_alive` owns the reader's buffer and
/// the data is in native byte order, the array borrows the data bytes (no copy; keep_alive
/// is held by the array) and its data() may not be aligned for the element type: read it
/// with memcpy (NDArray::get, to_native), not through a typed pointer. Otherwise the array
/// owns a native-order copy. Throws Error(kData) at the
/// record's byte for a negative shape, an element count that overflows, data whose length
/// is not shape x itemsize; Error(kType) for an unknown typestr; Error(kLimit) for a rank
/// above kMaxRank. Boolean bytes other than 0 read as true (copied as 1).
DecodedNdarray decode_ndarray(BinaryReader& in, const std::shared_ptr<const void>& keep_alive = {});

/// Encodes `array` (any strides, any byte order) as a record: its shape, the typestr_of
/// its type, its elements in C order little endian, version 3. Error(kType) as typestr_of,
/// Error(kLimit) for a shape entry above 2^31 - 1 (Avro `int`).
void encode_ndarray(const NDArray& array, BinaryWriter& out);

}  // namespace dudley::avro
