// model::Value <-> JSON, for every format whose metadata is JSON (Zarr's zarr.json, Avro
// schemas) and every tool that prints values (ls --json, dump --json), and for storage
// descriptions fed back to the codec layer (its configurations are JSON).
#pragma once

#include <nlohmann/json.hpp>

#include "dudley/model/value.hpp"

namespace dudley::model {

/// A value as JSON: integers exact (signed and unsigned 64-bit), doubles as numbers with
/// NaN and infinities as the strings "NaN", "Infinity", "-Infinity" (JSON has no such
/// numbers; Zarr writes them so), bytes as {"base64": ...}, a tagged value as
/// {"tag": TAG, "value": ...}; map keys in the value's order (a repeated key keeps its last
/// value). Linear in the value's size, also for maps of 100,000 keys. Recursive to the
/// value's depth, which readers bound (kMaxValueDepth).
nlohmann::ordered_json to_json(const Value& value);

/// The same as nlohmann::json (keys sorted), the codec layer's configuration type.
nlohmann::json to_plain_json(const Value& value);

/// JSON as a value, type for type: null, bool, integers (int64, or uint64 above its
/// range), doubles, strings, lists, maps (keys in the document's order). No string is
/// interpreted ("NaN" stays a string: what a string means is the format's business).
/// Recursive to the document's depth: callers parse JSON with a depth limit first
/// (nlohmann's parser callback, or reject deeper documents).
Value from_json(const nlohmann::ordered_json& json);
Value from_json(const nlohmann::json& json);

}  // namespace dudley::model
