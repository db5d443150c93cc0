// The model's attributes and storage descriptions as the JSON of `ls --json` and
// `dump --json` shows them (docs/cli.md), and compactly for the text listing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// A JSON-like value as JSON (model::to_json): numbers exact, NaN and infinities as the
/// strings "NaN", "Infinity", "-Infinity", bytes as {"base64": ...}, a tagged value as
/// {"tag", "value"}.
nlohmann::ordered_json value_json(const model::Value& value);

/// {NAME: VALUE, ...}: JSON-like values as value_json, typed arrays as
/// {"dtype", "shape", "data"}.
nlohmann::ordered_json attributes_json(const model::Attributes& attributes);

/// A byte order as storage_json's "byteorder" names it: "little", "big" or "none".
const char* byte_order_text(ByteOrder order);

/// {"layout": "contiguous", "offset", "size", "byteorder"} or {"layout": "chunked",
/// "chunk_shape", "codecs", "fill_value"}, with "mask" when the array has one; null for
/// storage the format does not describe.
nlohmann::ordered_json storage_json(const model::Storage& storage);

/// "units=\"K\", scale=2.5" (at most `limit` attributes, then "..."): for the text listing.
std::string attributes_text(const model::Attributes& attributes, size_t limit = 3);

/// "chunked [64, 64] bytes+zstd" for chunked storage, "sharded [256, 256] of [64, 64]
/// bytes+zstd" for shards of chunks (codecs around a shard in parentheses after its shape);
/// "" otherwise (the address says the rest).
std::string storage_text(const model::Storage& storage);

}  // namespace dudley::cli
