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

/// Writes `value` as it would appear `level` levels deep in a document dumped with `indent`
/// (its first line unindented: the caller has placed it), so a large document can be
/// printed piece by piece, each piece built and dropped in turn.
void write_json_at(Output& out, const nlohmann::ordered_json& value, int indent, int level);
/// The same, each marker replaced by what `stream` writes.
void write_json_at(Output& out, const nlohmann::ordered_json& value, int indent, int level,
                   const StreamValue& stream);

/// What write_json_at puts between members or items: "," and, when indenting, a new line
/// indented to `level`.
void write_json_separator(Output& out, int indent, int level, bool first);

/// An object member's start, `"name": ` (`"name":` on one line), after its separator at
/// `level`.
void write_json_key(Output& out, int indent, int level, const std::string& name, bool first);

}  // namespace dudley::cli
