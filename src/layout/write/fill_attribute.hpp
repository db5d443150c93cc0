// A chunked array's fill value as the `fill_value` attribute a Dudley layout holds.
#pragma once

#include <optional>

#include "dudley/model/tree.hpp"

namespace dudley::layout {

/// The fill value a Zarr reader keeps with an array's chunking (not as an attribute), as the
/// model's fill_value attribute: one element of the array's type when that type holds the
/// value exactly (numbers, and Zarr's "NaN", "Infinity", "-Infinity" and "0x" bits for
/// floats), else the value as the source gave it. nullopt when the array has no such fill
/// value, or already has a fill_value attribute.
std::optional<model::AttributeValue> chunking_fill(const model::Node& n);

}  // namespace dudley::layout
