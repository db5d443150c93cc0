// Zarr v3 `fill_value` <-> the bytes of one element, exactly: 64-bit integers whole, floats
// rounded from their decimal text to the type's precision (nearest, ties to even), "NaN",
// "Infinity", "-Infinity", "0x..." bit patterns, -0.0, complex pairs, raw byte arrays, and
// the extension types' strings and byte arrays. Printing then parsing gives the same bits.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dudley/core/dtype.hpp"

namespace dudley::zarr {

/// One element's value: its bytes in native byte order for fixed-size types; the UTF-8
/// text (`string`) or the bytes (`bytes`) of a variable-length one.
struct FillValue {
  std::vector<std::byte> bytes;
  friend bool operator==(const FillValue&, const FillValue&) = default;
};

/// The fill value `value` of an array of `type`, read from `where`. `number_text` holds the
/// decimal text of non-integer numbers by JSON pointer (JsonDocument::number_text) and
/// `pointer` is the value's own ("/fill_value"): floats are rounded from that text, not
/// from the double a JSON parser made of it. Throws Error(kData) naming `where` and the
/// value when it is not one the type permits (a fraction for an integer type, a number out
/// of range, a hex pattern of the wrong width, a complex value that is not a pair...).
FillValue fill_value_from_json(const nlohmann::ordered_json& value, const DType& type,
                               const std::map<std::string, std::string>& number_text,
                               const std::string& pointer, const std::string& where);

/// The fill_value JSON for `fill` of `type`: numbers where a number reads back to the same
/// bits (the shortest such text; -0.0 kept), "NaN" for the canonical NaN, "Infinity" and
/// "-Infinity", "0x..." for other NaNs; complex as a pair; r<N> as N/8 byte values.
nlohmann::ordered_json fill_value_to_json(const FillValue& fill, const DType& type);

/// The fill value a writer records when none is given: zeros (false, 0, 0.0, "" ...).
FillValue default_fill_value(const DType& type);

/// Whether `type` is one Zarr v2 has (a numpy dtype) but the v3 core has not: fixed-length
/// strings (S<n>, U<n>), structured dtypes and raw void (V<n>), whose fill values Zarr v2
/// spells its own way (v2_fill_from_json).
bool numpy_only_type(const DType& type);

/// A Zarr v2 fill value of a numpy-only type `stored` (with its byte order), in native byte
/// order: S<n> as base64 of its bytes, U<n> as the text itself, structures and V<n> as
/// base64 of the stored element, as zarr-python 2 writes them; the number 0 (what it gives
/// arrays created without one) as zeros. Error(kData) naming `where` for any other value.
FillValue v2_fill_from_json(const nlohmann::ordered_json& value, const DType& stored,
                            const std::string& where);

/// The Zarr v2 fill_value of a numpy-only type `stored` (`fill` in native order), as
/// zarr-python 2 writes it (S<n> without its trailing zeros).
nlohmann::ordered_json v2_fill_to_json(const FillValue& fill, const DType& stored);

}  // namespace dudley::zarr
