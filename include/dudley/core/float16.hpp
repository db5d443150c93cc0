// IEEE 754 binary16 <-> binary32 conversion (ANSI C has no f2, Dudley and Zarr do).
#pragma once

#include <cstdint>
#include <string>

namespace dudley {

/// Exact widening of a binary16 bit pattern to float (subnormals, infinities, NaN payloads kept).
float half_to_float(uint16_t half);

/// Narrowing of a float to binary16 with round-to-nearest-even; overflow gives infinity,
/// NaN stays NaN (quiet).
uint16_t float_to_half(float value);

/// The shortest decimal text that reads back (as a float, rounded to binary16) as the same
/// finite binary16 value: "0.1" for the half nearest 0.1, not "0.099975586". Printed with
/// up to 5 significant digits in %g form ("1e+04" for 10000); NaN and infinities give
/// "nan", "inf", "-inf".
std::string half_shortest_text(uint16_t half);

}  // namespace dudley
