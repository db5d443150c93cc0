// The text of one attribute in a layout (docs/design/layout-attributes.md, issue 64): what
// follows `#@` in a comment, `name: value`, read into the model's attribute values and
// written back so that it reads as the same value, bit for bit. A typed value (`<f4 1e20`,
// `>i2 [[1, 2], [3, 4]]`) is a small array of that dtype; an untyped one (`"K"`, `3`,
// `{a: [1, "x"]}`) a JSON-like value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "dudley/model/value.hpp"

namespace dudley::layout {

/// One attribute read from its text.
struct ParsedAttribute {
  std::string name;
  model::AttributeValue value;
  /// For text given a type (`S1[8] "K"`, `S1 "K"`): the type it is stored as, which
  /// model::Attributes::set_text keeps beside the text (fixed-length or variable-length
  /// ASCII, fixed-length UTF-8). nullopt for every other value.
  std::optional<DType> text_type;
};

/// A mistake in an attribute's text: `offset` bytes into the text given, and what is wrong.
struct AttributeTextError {
  size_t offset = 0;
  std::string message;
};

/// Reads `text` (`name: value`, the part of a `#@` comment after the marker). Lists and maps
/// nest at most `max_depth` levels. On a mistake returns false and fills `error`.
bool parse_attribute(std::string_view text, ParsedAttribute& out, AttributeTextError& error,
                     size_t max_depth = 1000);

/// As parse_attribute(), checking the text without making the value (what `dudley check`
/// pays for each attribute): true, with the attribute's name, when parse_attribute would
/// read it; false, with the same `error`, otherwise.
bool check_attribute(std::string_view text, std::string& name, AttributeTextError& error,
                     size_t max_depth = 1000);

/// `name: value` as parse_attribute() reads back to the same name and value (typed arrays
/// with their dtype and bits, NaN payloads included; tags; text with the type it is stored
/// as, `stored_text` as model::Attributes::stored_text_type gives it). Throws Error(kType)
/// for what the text cannot hold: a typed array of a dtype that is not a number, boolean or
/// one-byte text (UTF-16/32 text, structures, enums, references), an empty array of more than
/// one dimension.
std::string attribute_text(const std::string& name, const model::AttributeValue& value,
                           const DType* stored_text = nullptr);

/// Whether two attribute values are the same, bit for bit: floats compare by their bits (a
/// NaN equals the same NaN; 0.0 and -0.0 differ), typed arrays by dtype, shape and bytes.
bool same_attribute_value(const model::AttributeValue& a, const model::AttributeValue& b);

/// Whether two attributes have the same name and the same value (same_attribute_value).
bool operator==(const ParsedAttribute& a, const ParsedAttribute& b);

}  // namespace dudley::layout
