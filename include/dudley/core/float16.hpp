// IEEE 754 binary16 <-> binary32 conversion (ANSI C has no f2, Dudley and Zarr do).
#pragma once

#include <cstdint>

namespace dudley {

/// Exact widening of a binary16 bit pattern to float (subnormals, infinities, NaN payloads kept).
float half_to_float(uint16_t half);

/// Narrowing of a float to binary16 with round-to-nearest-even; overflow gives infinity,
/// NaN stays NaN (quiet).
uint16_t float_to_half(float value);

}  // namespace dudley
