// Helpers shared by the unit tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "dudley/core/file_io.hpp"
#include "dudley/layout/parser.hpp"

namespace dudley::testing {

/// All files with `extension` in a folder, sorted by name.
inline std::vector<std::filesystem::path> files_in(const std::string& folder,
                                                   const std::string& extension) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == extension) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Parses text that the test expects to be valid; fails the test with the diagnostics if not.
inline layout::Layout parse_ok(std::string_view text) {
  layout::ParseResult r = layout::parse_layout(text);
  std::string messages;
  for (const auto& d : r.diagnostics) {
    messages += std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.message + "\n";
  }
  EXPECT_TRUE(r.ok()) << messages;
  return std::move(r.layout);
}

/// Text with every LF line end replaced by `newline`.
inline std::string with_newlines(const std::string& text, const std::string& newline) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += newline;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace dudley::testing
