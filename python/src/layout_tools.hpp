// Dudley layouts from Python: dudley.check and dudley.fmt.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dudley/layout/syntax/layout.hpp"

namespace dudley::python {

/// One problem `dudley.check` found in a layout.
struct Diagnostic {
  std::string file;  ///< the path checked, or "<text>"
  uint32_t line = 0;
  uint32_t column = 0;
  std::string code;  ///< "undefined-parameter", ...
  std::string message;
};

/// True when a layout argument is layout text, not a path: it has a newline, or names no
/// file and has a '=' (every declaration does).
bool is_layout_text(const std::string& text_or_path);

/// A layout argument's text and the name to report it under: a path's file is read (Error
/// kIo when it cannot be), text is itself, "<text>".
std::pair<std::string, std::string> layout_text(const std::string& text_or_path);

/// A layout argument parsed; throws LayoutError (name:line:col) for invalid text.
layout::Layout parse_layout_arg(const std::string& text_or_path);

/// The problems of a layout given as text, or as the path of a file (text without a newline
/// that names a regular file); empty when it is valid.
std::vector<Diagnostic> check_layout(const std::string& text_or_path);

/// Layout text in canonical form, every comment kept; Error (kSyntax, with line and column)
/// for text that does not parse.
std::string format_layout(const std::string& text);

}  // namespace dudley::python
