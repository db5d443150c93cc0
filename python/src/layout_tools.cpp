#include "layout_tools.hpp"

#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::python {

bool is_layout_text(const std::string& text_or_path) {
  if (text_or_path.find('\n') != std::string::npos) return true;
  std::error_code ec;
  if (std::filesystem::is_regular_file(text_or_path, ec)) return false;
  // One line naming no file: a declaration has '=' (`x = f8[3]`, `N := i4`); anything else
  // is taken as a path, so that a mistyped file name says so rather than failing to parse.
  return text_or_path.find('=') != std::string::npos;
}

std::pair<std::string, std::string> layout_text(const std::string& text_or_path) {
  if (!is_layout_text(text_or_path)) return {read_text_file(text_or_path), text_or_path};
  return {text_or_path, "<text>"};
}

layout::Layout parse_layout_arg(const std::string& text_or_path) {
  const auto [text, name] = layout_text(text_or_path);
  return layout::layout_from_text(text, name);
}

std::vector<Diagnostic> check_layout(const std::string& text_or_path) {
  const auto [text, name] = layout_text(text_or_path);
  const layout::ParseResult result = layout::parse_layout(text);
  std::vector<Diagnostic> out;
  for (const layout::Diagnostic& d : result.diagnostics) {
    out.push_back({name, d.line, d.column, layout::diag_code_name(d.code), d.message});
  }
  return out;
}

std::string format_layout(const std::string& text) {
  layout::ParseOptions options;
  options.keep_comments = true;  // every comment is kept, as `dudley fmt` keeps them
  const layout::ParseResult result = layout::parse_layout(text, options);
  if (!result.ok()) {
    const layout::Diagnostic& d = result.diagnostics.front();
    throw Error(ErrorCategory::kSyntax, d.message, Location::text("<text>", d.line, d.column));
  }
  return layout::emit_layout(result.layout, result.source);
}

}  // namespace dudley::python
