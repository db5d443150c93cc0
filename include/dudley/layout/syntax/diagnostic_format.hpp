// Printing layout diagnostics like a compiler: "path:line:col: error: message [code]",
// then the offending source line and a caret under the column.
#pragma once

#include <string>
#include <string_view>

#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

/// Formats one diagnostic with its source line. `text` is the whole layout text the
/// diagnostic came from; very long lines are shown as a window around the column.
std::string format_diagnostic(const Diagnostic& diagnostic, std::string_view path,
                              std::string_view text);

}  // namespace dudley::layout
