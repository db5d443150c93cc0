#include "layout/syntax/lexer.hpp"

#include <gtest/gtest.h>

namespace dudley::layout {
namespace {

std::vector<Token> lex_all(std::string_view text) {
  Lexer lexer(text);
  std::vector<Token> out;
  for (;;) {
    Token t = lexer.next();
    out.push_back(t);
    if (t.kind == Tok::kEnd || t.kind == Tok::kError) return out;
  }
}

TEST(Lexer, TokensOfADeclaration) {
  auto t = lex_all("x = <f8[N+, 0x10] @ 42");
  std::vector<Tok> kinds;
  for (const auto& tok : t) kinds.push_back(tok.kind);
  EXPECT_EQ(kinds, (std::vector<Tok>{Tok::kSymbol, Tok::kEq, Tok::kPrefixedType, Tok::kLBracket,
                                     Tok::kSymbol, Tok::kPlus, Tok::kComma, Tok::kInteger,
                                     Tok::kRBracket, Tok::kAt, Tok::kInteger, Tok::kEnd}));
  EXPECT_EQ(t[2].text, "<f8");
  EXPECT_EQ(t[7].value, 16u);
  EXPECT_EQ(t[10].value, 42u);
  EXPECT_EQ(t[10].column, 21u);
}

TEST(Lexer, DirectivesAndPunctuation) {
  auto t = lex_all("!DUDLEY !TEMPLATE !@ := .. / { } ]");
  EXPECT_EQ(t[0].kind, Tok::kBangDudley);
  EXPECT_EQ(t[1].kind, Tok::kBangTemplate);
  EXPECT_EQ(t[2].kind, Tok::kBangAt);
  EXPECT_EQ(t[3].kind, Tok::kColonEq);
  EXPECT_EQ(t[4].kind, Tok::kDotDot);
  EXPECT_EQ(t[5].kind, Tok::kSlash);
}

TEST(Lexer, CountsLinesForEveryNewlineConvention) {
  for (const char* text : {"a\nb\nc", "a\r\nb\r\nc", "a\rb\rc", "a\n\rb\nc"}) {
    auto t = lex_all(text);
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[2].line, std::string_view(text).find("\n\r") != std::string_view::npos ? 4u : 3u)
        << text;
    EXPECT_EQ(t[2].column, 1u);
  }
}

TEST(Lexer, CollectsStrippedDocComments) {
  Lexer lexer("x = f8  #!   the doc  \n# plain comment\n#!second\n");
  while (lexer.next().kind != Tok::kEnd) {
  }
  ASSERT_EQ(lexer.docs().size(), 2u);
  EXPECT_EQ(lexer.docs()[0].text, "the doc");
  EXPECT_EQ(lexer.docs()[0].line, 1u);
  EXPECT_EQ(lexer.docs()[0].column, 9u);
  EXPECT_EQ(lexer.docs()[1].text, "second");
}

TEST(Lexer, Overflow) {
  auto t =
      lex_all("18446744073709551615 18446744073709551616 0xFFFFFFFFFFFFFFFF 0x10000000000000000");
  EXPECT_FALSE(t[0].overflow);
  EXPECT_EQ(t[0].value, ~uint64_t{0});
  EXPECT_TRUE(t[1].overflow);
  EXPECT_FALSE(t[2].overflow);
  EXPECT_TRUE(t[3].overflow);
}

TEST(Lexer, ErrorsSayWhat) {
  Lexer a("x = f8 ?");
  Token t;
  while ((t = a.next()).kind != Tok::kError && t.kind != Tok::kEnd) {
  }
  EXPECT_EQ(t.kind, Tok::kError);
  EXPECT_EQ(t.column, 8u);
  EXPECT_EQ(std::string(a.error_code()), "bad-character");
  EXPECT_NE(a.error().find("'?'"), std::string::npos);
  Lexer b("< i4");
  EXPECT_EQ(b.next().kind, Tok::kError);
  Lexer c(std::string_view("# \0 in comment\n", 15));
  EXPECT_EQ(c.next().kind, Tok::kError);
  EXPECT_EQ(std::string(c.error_code()), "bad-character");
  EXPECT_EQ(c.next().kind, Tok::kError);  // stays failed
}

}  // namespace
}  // namespace dudley::layout
