// Layout model -> canonical Dudley text.
#pragma once

#include <string>

#include "dudley/layout/layout.hpp"

namespace dudley::layout {

/// Writes the layout as canonical text: one declaration a line, two-space indentation per
/// nesting level, decimal addresses, documents as `#!` comments after their item. Parsing the
/// result gives a layout equal to `layout` (declaration order, and so every address, is kept).
std::string emit_layout(const Layout& layout);

}  // namespace dudley::layout
