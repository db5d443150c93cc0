// Layout model -> canonical Dudley text.
#pragma once

#include <string>

#include "dudley/layout/syntax/layout.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

/// Writes the layout as canonical text: one declaration a line, two-space indentation per
/// nesting level, decimal addresses, documents as `#!` comments after their item. Parsing the
/// result gives a layout equal to `layout` (declaration order, and so every address, is kept).
std::string emit_layout(const Layout& layout);

/// As emit_layout, and puts back the ordinary comments `source` kept (parse with
/// ParseOptions::keep_comments): a comment alone on its line goes before the statement that
/// followed it, at that statement's indentation; a comment after a declaration stays on the
/// declaration's line; comments after the last statement end the text.
std::string emit_layout(const Layout& layout, const LayoutSource& source);

}  // namespace dudley::layout
