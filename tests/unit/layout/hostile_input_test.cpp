// Input built to break a parser: every case must end in a diagnostic or a correct parse,
// quickly and without crashing (the sanitizer build runs these too).
#include <gtest/gtest.h>

#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {
namespace {

DiagCode first_code(std::string_view text) {
  ParseResult r = parse_layout(text);
  EXPECT_FALSE(r.ok());
  return r.ok() ? DiagCode::kTooManyErrors : r.diagnostics.front().code;
}

TEST(HostileInput, HundredThousandNestedGroups) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "g /";
  EXPECT_EQ(first_code(text), DiagCode::kNestingTooDeep);
}

TEST(HostileInput, HundredThousandNestedLists) {
  std::string text = "L = ";
  for (int i = 0; i < 100000; ++i) text += "[ = ";
  EXPECT_EQ(first_code(text), DiagCode::kNestingTooDeep);
}

TEST(HostileInput, HundredThousandBrackets) {
  EXPECT_EQ(first_code(std::string(100000, '[')), DiagCode::kSyntax);
  EXPECT_EQ(first_code("x = f8" + std::string(100000, '[')), DiagCode::kSyntax);
  EXPECT_EQ(first_code(std::string(100000, ']')), DiagCode::kSyntax);
  EXPECT_EQ(first_code(std::string(100000, '{')), DiagCode::kSyntax);
}

TEST(HostileInput, DeepButAllowedNestingRoundTrips) {
  std::string text = "L = ";
  // L is at depth 1, each sublist one deeper, and the f4 item at exactly the limit.
  for (uint32_t i = 0; i < kMaxNestingDepth - 1; ++i) text += "[ = ";
  text += "f4 ";
  for (uint32_t i = 0; i < kMaxNestingDepth - 1; ++i) text += "]";
  ParseResult r = parse_layout(text);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().message;
  EXPECT_TRUE(parse_layout(emit_layout(r.layout)).layout == r.layout);
}

TEST(HostileInput, HundredMegabyteLine) {
  std::string text = "x = f8[1" + std::string(100u << 20, '0') + "]";
  EXPECT_EQ(first_code(text), DiagCode::kIntegerOverflow);
  std::string name(100u << 20, 'a');
  ParseResult r = parse_layout(name + " = f8");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.layout.name(r.layout.nodes[1].name).size(), name.size());
  std::string spaces = "x = f8" + std::string(100u << 20, ' ') + "y = f4";
  EXPECT_TRUE(parse_layout(spaces).ok());
  std::string comment = "x = f8 #" + std::string(100u << 20, 'c');
  EXPECT_TRUE(parse_layout(comment).ok());
}

TEST(HostileInput, BinaryGarbage) {
  std::string text;
  uint32_t state = 12345;
  for (int i = 0; i < 1 << 16; ++i) {
    state = state * 1103515245 + 12345;
    text += static_cast<char>(state >> 24);
  }
  EXPECT_FALSE(parse_layout(text).ok());
}

TEST(HostileInput, TruncatedAtEveryByte) {
  const std::string full =
      "!DUDLEY := S1[8]\nN := i4 @ 8\nT := { n := u4 a = f8[n] }\n"
      "g / x = f8[N+] @ 0x40 #! doc\n L = [ = f4 / y = T .. ] ..\n"
      "PB := { k := i4 }[2]  h = PB{ v = f4[k] } @ 100\n 17 = f8[2]\n";
  ASSERT_TRUE(parse_layout(full).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    ParseResult r = parse_layout(std::string_view(full).substr(0, n));
    for (const auto& d : r.diagnostics) {
      EXPECT_GE(d.line, 1u);
      EXPECT_LE(d.offset, n);
    }
  }
}

TEST(HostileInput, IntegersAtTheLimits) {
  EXPECT_TRUE(parse_layout("N := -9223372036854775808  M := 9223372036854775807").ok());
  EXPECT_EQ(first_code("N := -9223372036854775809"), DiagCode::kIntegerOverflow);
  EXPECT_TRUE(parse_layout("x = f8[0] @ 18446744073709551615").ok());
  EXPECT_EQ(first_code("x = f8 @ 18446744073709551615"), DiagCode::kSizeOverflow);
  EXPECT_EQ(first_code("T := { a = u1 @ 18446744073709551615 }"), DiagCode::kSizeOverflow);
  EXPECT_EQ(first_code("T := { a = u1  !@ 18446744073709551615  b = u1 }"),
            DiagCode::kSizeOverflow);
  EXPECT_EQ(first_code("x = f8[4611686018427387904, 4]"), DiagCode::kSizeOverflow);
  std::string rank64 = "x = u1[1", rank65;
  for (uint32_t i = 1; i < kMaxDimensions; ++i) rank64 += ",1";
  rank65 = rank64 + ",1]";
  EXPECT_TRUE(parse_layout(rank64 + "]").ok());
  EXPECT_EQ(first_code(rank65), DiagCode::kTooManyDimensions);
  EXPECT_EQ(first_code("x = f8 @ 18446744073709551616"), DiagCode::kIntegerOverflow);
  EXPECT_EQ(first_code("18446744073709551615 = f8"), DiagCode::kReservedPointeeKey);
}

TEST(HostileInput, ManySuffixes) {
  EXPECT_EQ(first_code("N := 1 x = f8[N" + std::string(2000000, '+') + "]"),
            DiagCode::kIntegerOverflow);
}

}  // namespace
}  // namespace dudley::layout
