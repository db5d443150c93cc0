// Reporting several errors per file without cascades (every error kind has a corpus file in
// tests/data/dudley/layouts/invalid; this file checks how they combine).
#include <gtest/gtest.h>

#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {
namespace {

std::vector<std::string> codes(const ParseResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.emplace_back(diag_code_name(d.code));
  return out;
}

TEST(StaticChecks, ReportsEverySemanticErrorInTextOrder) {
  ParseResult r = parse_layout(
      "x = f8[N]\n"    // undefined parameter
      "y = Foo\n"      // undefined type
      "x = f4\n"       // duplicate variable
      "s = S1\n"       // text without dimension
      "M := f8\n"      // parameter not integer
      "z = f8[M]\n");  // M exists (with a bad type): no cascade here
  EXPECT_EQ(codes(r),
            (std::vector<std::string>{"undefined-parameter", "undefined-type", "duplicate-variable",
                                      "text-without-dimension", "parameter-not-integer"}));
  EXPECT_EQ(r.diagnostics[2].line, 3u);
}

TEST(StaticChecks, SyntaxErrorStopsTheParse) {
  ParseResult r = parse_layout("x = f8[N]\ny = = f4\nz = Foo\n");
  EXPECT_EQ(codes(r), (std::vector<std::string>{"undefined-parameter", "syntax"}));
}

TEST(StaticChecks, StopsAfterMaxErrors) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "x" + std::to_string(i) + " = f8[N]\n";
  ParseOptions options;
  options.max_errors = 10;
  ParseResult r = parse_layout(text, options);
  ASSERT_EQ(r.diagnostics.size(), 11u);
  EXPECT_EQ(r.diagnostics.back().code, DiagCode::kTooManyErrors);
}

TEST(StaticChecks, ReusedNameDoesNotCascade) {
  ParseResult r = parse_layout("g /\n..\ng = f4\ng / x = f4 ..\n");
  EXPECT_EQ(codes(r), (std::vector<std::string>{"name-reused"}));
}

TEST(StaticChecks, OutOfScopeNamesWhereTheParameterLives) {
  ParseResult r = parse_layout("g /\n  N := 3\n..\nh /\n  x = f8[N]\n");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, DiagCode::kParameterOutOfScope);
  EXPECT_NE(r.diagnostics[0].message.find("/g at 2:3"), std::string::npos)
      << r.diagnostics[0].message;
}

TEST(StaticChecks, TypedefOfIntegerIsAValidParameterType) {
  EXPECT_TRUE(parse_layout("count := { = >u4 }  N := count  x = f8[N]").ok());
  EXPECT_FALSE(parse_layout("vec := { = i4[2] }  N := vec").ok());
}

}  // namespace
}  // namespace dudley::layout
