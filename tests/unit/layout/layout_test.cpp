// The layout model's navigation, printing and equality.
#include "dudley/layout/syntax/layout.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

TEST(Layout, FindAndPathAgree) {
  Layout l = parse_ok("g / sub / x = f4 .. .. L = [ = f4 / y = f4 .. ]");
  for (const char* p : {"/", "/g", "/g/sub", "/g/sub/x", "/L", "/L/0", "/L/1", "/L/1/y"}) {
    NodeId id = l.find(p);
    ASSERT_NE(id, kNone) << p;
    EXPECT_EQ(l.path(id), p);
  }
  EXPECT_EQ(l.find("g/sub/x"), l.find("/g/sub/x"));  // leading slash optional
  for (const char* p : {"/nope", "/g/x", "/L/2", "/L/x", "/g/sub/x/deeper", "/L/-1"}) {
    EXPECT_EQ(l.find(p), kNone) << p;
  }
}

TEST(Layout, TypeTextShowsPrefixWhenShadowed) {
  Layout l = parse_ok("a = i4  b = <i4  f8 := { = >f8 }  c = |f8  d = f8");
  EXPECT_EQ(l.type_text(l.nodes[l.find("/a")].type), "i4");
  EXPECT_EQ(l.type_text(l.nodes[l.find("/b")].type), "<i4");
  EXPECT_EQ(l.type_text(l.nodes[l.find("/c")].type), "|f8");
  EXPECT_EQ(l.type_text(l.nodes[l.find("/d")].type), "f8");
}

TEST(Layout, EqualityIgnoresPositionsButNotMeaning) {
  Layout a = parse_ok("x = f8[3]  #! doc");
  Layout b = parse_ok("\n\n   x   =   f8 [ 3 ]   #!   doc");
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == parse_ok("x = f8[4]  #! doc"));
  EXPECT_FALSE(a == parse_ok("y = f8[3]  #! doc"));
  EXPECT_FALSE(a == parse_ok("x = f8[3]  #! other"));
  EXPECT_FALSE(a == parse_ok("x = <f8[3]  #! doc"));
  EXPECT_FALSE(a == parse_ok("x = f8[3] @ 0  #! doc"));
}

TEST(Layout, CopiesAreIndependentAndEqual) {
  Layout a = parse_ok("N := 3 g / x = f8[N] ..");
  Layout b = a;
  EXPECT_TRUE(a == b);
  EXPECT_EQ(b.name(b.nodes[b.find("/g/x")].name), "x");
  a = Layout();
  EXPECT_EQ(b.name(b.nodes[b.find("/g/x")].name), "x");  // b kept its own names
}

TEST(Layout, PrimitiveTable) {
  EXPECT_EQ(primitive_from_name("c16"), Primitive::c16);
  EXPECT_FALSE(primitive_from_name("c32").has_value());
  EXPECT_FALSE(primitive_from_name("x").has_value());
  EXPECT_EQ(primitive_size(Primitive::c4), 4u);
  EXPECT_TRUE(primitive_is_text(Primitive::U2));
  EXPECT_TRUE(primitive_is_integer(Primitive::u8));
  EXPECT_FALSE(primitive_is_integer(Primitive::p8));
  EXPECT_EQ(primitive_dtype(Primitive::c4, ByteOrder::kBig).to_string(), ">c4");
  EXPECT_EQ(primitive_dtype(Primitive::S1, ByteOrder::kBig).to_string(), "|S1");
  EXPECT_EQ(primitive_dtype(Primitive::U2, ByteOrder::kLittle).to_string(), "<U2");
  EXPECT_EQ(primitive_dtype(Primitive::b1, ByteOrder::kUnspecified).to_string(), "|b1");
}

}  // namespace
}  // namespace dudley::layout
