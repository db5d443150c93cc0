// YAML 1.1 text for the writer: block-style mappings and sequences, flow-style short lists
// of scalars, and scalars spelled so that PyYAML (and our reader) reads back the same value:
// strings that would read as something else are quoted, floats always carry a '.' and a
// signed exponent, tags use the ASDF shorthand "!core/..." under "%TAG ! tag:stsci.edu:asdf/".
#pragma once

#include <string>

#include "dudley/model/value.hpp"

namespace dudley::yaml {

/// A float as YAML 1.1 text: the shortest that reads back as the same value (as float32 when
/// `single`), always with a '.' ("1.0", "1.5e+20"); ".nan", ".inf", "-.inf".
std::string yaml_float(double v, bool single = false);
/// A scalar as YAML text (quoted when needed).
std::string yaml_scalar(const model::Value& value);
/// A string, quoted if a plain spelling would read as another type or break the syntax.
std::string yaml_string(const std::string& s);
/// A tag as written: "!core/ndarray-1.0.0" for the ASDF namespace, "!<...>" otherwise.
std::string yaml_tag(const std::string& tag);

/// Appends `value` to `out` as the value of a mapping entry or sequence item at `indent`
/// spaces (the caller wrote "key:" or "-" already): " scalar\n" or "\n" + nested lines.
void emit_value(std::string& out, const model::Value& value, int indent);

}  // namespace dudley::yaml
