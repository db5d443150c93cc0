// Dudley layouts from Python: dudley.check and dudley.fmt.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dudley::python {

/// One problem `dudley.check` found in a layout.
struct Diagnostic {
  std::string file;  ///< the path checked, or "<text>"
  uint32_t line = 0;
  uint32_t column = 0;
  std::string code;  ///< "undefined-parameter", ...
  std::string message;
};

/// A layout argument's text and the name to report it under: text without a newline that
/// names a regular file is that file's path (read), anything else is the text, "<text>".
std::pair<std::string, std::string> layout_text(const std::string& text_or_path);

/// The problems of a layout given as text, or as the path of a file (text without a newline
/// that names a regular file); empty when it is valid.
std::vector<Diagnostic> check_layout(const std::string& text_or_path);

/// Layout text in canonical form, every comment kept; Error (kSyntax, with line and column)
/// for text that does not parse.
std::string format_layout(const std::string& text);

}  // namespace dudley::python
