#include "dudley/layout/syntax/diagnostic_format.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dudley::layout {

namespace {
constexpr size_t kWindow = 100;  // characters of a long source line shown around the column

// Replaces bytes a terminal would misrender (control characters, NUL) by '?'.
std::string printable(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') c = '?';
    if (u == 0x7F) c = '?';
  }
  return out;
}
}  // namespace

std::string format_diagnostic(const Diagnostic& d, std::string_view path, std::string_view text) {
  std::string out = fmt::format("{}:{}:{}: error: {} [{}]\n", path.empty() ? "<input>" : path,
                                d.line, d.column, d.message, diag_code_name(d.code));
  if (d.line == 0 || d.offset > text.size()) return out;
  size_t line_start = d.offset;
  while (line_start > 0 && text[line_start - 1] != '\n' && text[line_start - 1] != '\r') {
    --line_start;
  }
  size_t line_end = d.offset;
  while (line_end < text.size() && text[line_end] != '\n' && text[line_end] != '\r') ++line_end;
  size_t column = d.offset - line_start;  // 0-based
  size_t shown_start = line_start;
  std::string prefix;
  if (column > kWindow / 2) {
    shown_start = d.offset - kWindow / 2;
    prefix = "...";
  }
  size_t shown_end = std::min(line_end, shown_start + kWindow);
  std::string suffix = shown_end < line_end ? "..." : "";
  std::string source =
      prefix + printable(text.substr(shown_start, shown_end - shown_start)) + suffix;
  std::string caret(prefix.size() + (d.offset - shown_start), ' ');
  // Keep tabs so the caret lines up under tabbed source.
  for (size_t i = 0; i < d.offset - shown_start; ++i) {
    if (text[shown_start + i] == '\t') caret[prefix.size() + i] = '\t';
  }
  out += fmt::format("  {}\n  {}^\n", source, caret);
  return out;
}

}  // namespace dudley::layout
