// The JSON forms of the model that `ls --json` and `dump --json` print (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// "<f8", "|S1", ... or {"struct": NAME, "size": N, "fields": [...]} for compounds.
nlohmann::ordered_json dtype_json(const DType& type);

/// A node and its descendants; arrays include "data" (read now) when `with_data`.
nlohmann::ordered_json node_json(const model::Node& node, bool with_data);

/// Array values as nested lists in C order: floats as the shortest text that round-trips
/// in their own precision, NaN and infinities as strings, complex as [re, im], text with its
/// last dimension as a string, structs as objects.
nlohmann::ordered_json values_json(const NDArray& array);

}  // namespace dudley::cli
