#include "dudley/layout/syntax/diagnostic_format.hpp"

#include <gtest/gtest.h>

namespace dudley::layout {
namespace {

TEST(DiagnosticFormat, ShowsLineAndCaret) {
  std::string text = "N := 3\nx = f8[M]\n";
  ParseResult r = parse_layout(text);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(format_diagnostic(r.diagnostics[0], "a.dud", text),
            "a.dud:2:8: error: undefined parameter 'M' [undefined-parameter]\n"
            "  x = f8[M]\n"
            "         ^\n");
}

TEST(DiagnosticFormat, LongLinesAreWindowed) {
  std::string text = "x = f8[" + std::string(5000, '1') + "]] y\n";
  ParseResult r = parse_layout(text);
  ASSERT_FALSE(r.ok());
  std::string shown = format_diagnostic(r.diagnostics[0], "big.dud", text);
  EXPECT_LT(shown.size(), 400u);
  EXPECT_NE(shown.find("..."), std::string::npos);
}

TEST(DiagnosticFormat, ControlCharactersAreMasked) {
  std::string text("x = \x01", 5);
  ParseResult r = parse_layout(text);
  ASSERT_FALSE(r.ok());
  std::string shown = format_diagnostic(r.diagnostics[0], "", text);
  EXPECT_EQ(shown.find('\x01'), std::string::npos);
  EXPECT_EQ(shown.rfind("<input>:1:5:", 0), 0u);
}

}  // namespace
}  // namespace dudley::layout
