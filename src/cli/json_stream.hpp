// Printing a JSON document whose large values are written in place as it is printed: dump
// builds the tree of an output (small) with a marker where each array's values go, and the
// values (any size) stream into the output when the printer reaches the marker.
#pragma once

#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>

#include "cli/value_text.hpp"

namespace dudley::cli {

/// A marker standing for streamed value number `id`: a binary value, which nothing else in
/// an output tree is, so it cannot be confused with data.
nlohmann::ordered_json stream_marker(uint64_t id);

/// Writes the value of marker `id` to the output and returns members to add to the object
/// holding the marker, after it (an object; null for none).
using StreamValue = std::function<nlohmann::ordered_json(uint64_t id)>;

/// Writes `doc` as nlohmann's dump(indent) would (indent < 0: one line), each marker
/// replaced by what `stream` writes.
void write_json(Output& out, const nlohmann::ordered_json& doc, int indent,
                const StreamValue& stream);

}  // namespace dudley::cli
