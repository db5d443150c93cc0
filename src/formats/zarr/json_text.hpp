// Zarr metadata documents (zarr.json, .zarray, .zattrs) parsed as JSON, keeping what a
// plain JSON parse loses: the text of each non-integer number (a float fill value is
// rounded from its decimal text to float32 or float16, not from a double), and the place
// of each error as path:line:col. Duplicate keys and nesting deeper than a limit are
// errors, not silently resolved.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dudley::zarr {

/// A parsed document and the decimal text of its numbers that are not plain integers
/// (a fraction or an exponent, or too large for 64 bits), by JSON pointer ("/fill_value",
/// "/fill_value/1").
// nlohmann's default construction may allocate; running out of memory there is not a case
// to handle.
struct JsonDocument {            // NOLINT(bugprone-exception-escape)
  nlohmann::ordered_json value;  ///< objects keep their keys in the document's order
  std::map<std::string, std::string> number_text;
};

/// The deepest nesting accepted (objects and arrays); metadata needs a handful of levels,
/// attributes a few more.
inline constexpr size_t kMaxJsonDepth = 256;

/// Parses `text`, read from `path`. Throws Error(kSyntax) at path:line:col for malformed
/// JSON, a key given twice in one object, or nesting deeper than kMaxJsonDepth.
JsonDocument parse_json_document(std::string_view text, const std::string& path);

}  // namespace dudley::zarr
