#include <gtest/gtest.h>

#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {
namespace {

size_t template_errors(std::string_view text, bool force = false) {
  ParseOptions options;
  options.force_template_check = force;
  ParseResult r = parse_layout(text, options);
  size_t n = 0;
  for (const auto& d : r.diagnostics) n += d.code == DiagCode::kTemplate;
  return n;
}

TEST(TemplateCheck, ParametersFirstPasses) {
  EXPECT_EQ(template_errors("!TEMPLATE !DUDLEY := S1[8] N := i4 PB := { n := i4 }[N] "
                            "x = f8[N] h = PB{ a = f4[n] } g / y = f8 .."),
            0u);
}

TEST(TemplateCheck, OnlyCheckedWhenAskedFor) {
  const char* late = "x = f8  N := i4";
  EXPECT_EQ(template_errors(late), 0u);
  EXPECT_EQ(template_errors(late, /*force=*/true), 1u);
}

TEST(TemplateCheck, FixedParametersMayComeLate) {
  EXPECT_EQ(template_errors("!TEMPLATE x = f8  N := 4  y = f8[N]"), 0u);
}

TEST(TemplateCheck, EachViolationReported) {
  EXPECT_EQ(template_errors("!TEMPLATE x = f8  N := i4  M := u8  5 = f8 @ 8  p = p4"), 4u);
}

TEST(TemplateCheck, PointerInsideAStruct) {
  EXPECT_EQ(template_errors("!TEMPLATE T := { a = f8  next = p8 }  x = T[3]"), 1u);
}

TEST(TemplateCheck, NestedCountedArray) {
  EXPECT_EQ(template_errors("!TEMPLATE s := { n := u4 = S1[n] }  T := { name = s }  x = T"), 1u);
}

TEST(TemplateCheck, DataInsideListsCountsAsData) {
  EXPECT_EQ(template_errors("!TEMPLATE L = [ = f8 ]  N := i4"), 1u);
}

}  // namespace
}  // namespace dudley::layout
