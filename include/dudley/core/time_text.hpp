// numpy's datetime64 and timedelta64 values as text: what `dump` prints for DTypeKind::kTime.
#pragma once

#include <cstdint>
#include <string>

#include "dudley/core/dtype.hpp"

namespace dudley {

/// The smallest int64, numpy's NaT ("not a time") in datetime64 and timedelta64.
inline constexpr int64_t kNotATime = INT64_MIN;

/// A datetime64 `count` of `type`'s units as numpy's datetime_as_string writes it: ISO 8601
/// to the unit's precision ("2020", "2020-01", "2020-01-01", "2020-01-01T12",
/// "2020-01-01T12:30:00.250"; weeks as their first day), "NaT" for kNotATime. A generic
/// unit (numpy's bare M8) has no date: the count. Years are proleptic Gregorian and may be
/// negative or longer than four digits.
std::string datetime_text(int64_t count, const DType& type);

}  // namespace dudley
