// The values a figure draws: any array of numbers as doubles.
#pragma once

#include <string>
#include <vector>

#include "dudley/core/ndarray.hpp"

namespace dudley::render {

/// The elements of `array` (native byte order, C-contiguous) as doubles: booleans as 0 and
/// 1, integers and half, single and double floats widened, enumerations by their integer,
/// complex numbers as their amplitude, or their phase when `phase`. Throws Error(kUsage)
/// naming `what` for any other type (strings, structs).
std::vector<double> figure_values(const NDArray& array, bool phase, const std::string& what);

/// Throws the Error(kUsage) figure_values throws for `dtype`, when its values are no
/// numbers: a reader checks before it reads.
void check_figure_type(const DType& dtype, const std::string& what);

}  // namespace dudley::render
