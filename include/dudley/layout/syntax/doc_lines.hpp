// Document text as `#!` comment lines. Text from elsewhere (a source's documents, names and
// attributes, a caller's string) reaches layout text only through here: a line end in it
// would end the comment and make the rest of it declarations, and a NUL or a byte that is
// not UTF-8 would make the layout fail to parse.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dudley::layout {

/// The lines of `text` as `#!` comments may hold them: split at every line end the lexer
/// knows ("\n", "\r" and "\r\n"), a NUL written as "\0", bytes that are not UTF-8 as U+FFFD.
/// One empty line for empty text.
std::vector<std::string> doc_lines(std::string_view text);

}  // namespace dudley::layout
