// The JSON forms of the model that `ls --json` and `dump --json` print (docs/cli.md).
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// "<f8", "|S1", ... or {"struct": NAME, "size": N, "fields": [...]} for compounds.
nlohmann::ordered_json dtype_json(const DType& type);

/// Adds keys to an array node's JSON (dump adds "data", "selections", "target").
using ArrayDecorator = std::function<void(const model::Node& array, nlohmann::ordered_json& out)>;

/// A node and its descendants in the ls form; `decorate` is called for each resolved array.
nlohmann::ordered_json node_json(const model::Node& node, const ArrayDecorator& decorate = {});

/// Array values as nested lists in C order: floats as the shortest text that round-trips
/// in their own precision, NaN and infinities as strings, complex as [re, im], text with its
/// last dimension as a string, structs as objects.
nlohmann::ordered_json values_json(const NDArray& array);

}  // namespace dudley::cli
