// The names of the numeric types, as numpy spells them ("int8" ... "float64", "complex128"),
// which ASDF, NDL and Zarr v3 share: one table for every format that names types so.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "dudley/core/dtype.hpp"

namespace dudley {

/// Every numeric type name: int8, uint8, int16, uint16, int32, uint32, int64, uint64,
/// float16, float32, float64, complex64, complex128 (in that order).
std::span<const std::string_view> numeric_type_names();

/// The type `name` names, in byte order `order` (one-byte integers have none); nullopt
/// for any other name. A format that has fewer types refuses the others itself.
std::optional<DType> numeric_type_named(std::string_view name, ByteOrder order);

/// The name of a numeric `type` (integers of 1-8 bytes, floats of 2-8, complex of 8 or
/// 16); nullopt for any other type (booleans, text, records...).
std::optional<std::string_view> numeric_type_name(const DType& type);

}  // namespace dudley
