// Canonical text, checked against output written out by hand.
#include "dudley/layout/syntax/emitter.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

TEST(Emitter, CanonicalFormOfGroupsListsAndDocs) {
  Layout l = parse_ok(
      "N:=0x10 #! count\n"
      "g/x=f8[N+]@0x20 h/y=<i4 ..z=u1/\n"
      "L=[=f4 /a=i1 .. =[=u2]] #! item doc\n");
  EXPECT_EQ(emit_layout(l),
            "N := 16  #! count\n"
            "g /\n"
            "  x = f8[N+] @ 32\n"
            "  h /\n"
            "    y = <i4\n"
            "  ..\n"
            "  z = u1\n"
            "..\n"
            "L = [\n"
            "  = f4\n"
            "  /\n"
            "    a = i1\n"
            "  ..\n"
            "  = [\n"
            "    = u2  #! item doc\n"
            "  ]\n"
            "]\n");
  // "#! item doc" follows the sublist's ']': it documents the most recent item begun (u2).
  EXPECT_EQ(l.doc(l.nodes[l.find("/L/2/0")].doc), "item doc");
}

TEST(Emitter, KeepsOrdinaryComments) {
  ParseOptions keep;
  keep.keep_comments = true;
  ParseResult r = parse_layout(
      "# header\n"
      "N := 2   # count \n"
      "#! doc of N\n"
      "\n"
      "  # section\n"
      "g /  x = f8[N]  # trailing\n"
      "  # inside g\n"
      "  T := {\n"
      "    a = i1  # member note\n"
      "  }\n"
      "  y = T\n"
      "..\n"
      "# the end\n",
      keep);
  ASSERT_TRUE(r.ok());
  // Own-line comments precede the statement after them at its indentation; a trailing
  // comment stays on its declaration's line and a doc from the next line follows below it;
  // a comment inside a struct body goes before the next statement.
  EXPECT_EQ(emit_layout(r.layout, r.source),
            "# header\n"
            "N := 2  # count\n"
            "#! doc of N\n"
            "# section\n"
            "g /\n"
            "  x = f8[N]  # trailing\n"
            "  # inside g\n"
            "  T := {\n"
            "    a = i1\n"
            "  }\n"
            "  # member note\n"
            "  y = T\n"
            "..\n"
            "# the end\n");
  // Without the source, comments are not kept (convert writes layouts this way).
  EXPECT_EQ(emit_layout(r.layout).find('#'), emit_layout(r.layout).find("#!"));
}

TEST(Emitter, ReopenedGroupsKeepFileOrder) {
  // b is declared between the two halves of g, so the canonical text must reopen g.
  Layout l = parse_ok("g / a = f4 / b = f4 g / c = f4");
  EXPECT_EQ(emit_layout(l), "g /\n  a = f4\n..\nb = f4\ng /\n  c = f4\n..\n");
}

TEST(Emitter, TypesBlocksAndHeterogeneousArrays) {
  Layout l = parse_ok(
      "T := { n := u4 a = f8[n] @ 4 !@ 100 b = u1 } "
      "NB := 2 PB := { k := i4 }[NB] @ 8 h = PB{ v = f4[k] } @ 64 "
      "7 = T @ 200 !DUDLEY := S1[8]");
  EXPECT_EQ(emit_layout(l),
            "T := {\n"
            "  n := u4\n"
            "  a = f8[n] @ 4\n"
            "  !@ 100\n"
            "  b = u1\n"
            "}\n"
            "NB := 2\n"
            "PB := {\n"
            "  k := i4\n"
            "}[NB] @ 8\n"
            "h = PB{\n"
            "  v = f4[k]\n"
            "} @ 64\n"
            "7 = T @ 200\n"
            "!DUDLEY := S1[8]\n");
}

TEST(Emitter, AttributesFollowTheirItemOneALine) {
  const std::string text =
      "x = f8  #@ units: \"K\"\n"
      "#@ b: b\"\\x00\"\n"
      "#@ t: \"file\"\n"
      "g /  #! a group\n"
      "  #@ v: >i2 [[1, 2], [3, 4]]\n"
      "  y = f4  #@ m: {a: [1, \"x\"]}\n"
      "..\n";
  Layout l = parse_ok(text);
  // #@ t: "file" follows x, so it is x's; the root has none.
  EXPECT_EQ(emit_layout(l),
            "x = f8\n"
            "#@ units: \"K\"\n"
            "#@ b: b\"\\x00\"\n"
            "#@ t: \"file\"\n"
            "g /  #! a group\n"
            "#@ v: >i2 [[1, 2], [3, 4]]\n"
            "  y = f4\n"
            "  #@ m: {a: [1, \"x\"]}\n"
            "..\n");
  EXPECT_EQ(parse_ok(emit_layout(l)), l);
  // The file's attributes lead it, after !TEMPLATE.
  Layout root = parse_ok("!TEMPLATE\n#@ title: \"t\"\nN := i4\nx = f8[N]\n");
  EXPECT_EQ(emit_layout(root), "!TEMPLATE\n#@ title: \"t\"\nN := i4\nx = f8[N]\n");
  EXPECT_EQ(parse_ok(emit_layout(root)), root);
}

TEST(Emitter, MultiLineDocsAndTemplate) {
  Layout l = parse_ok("!TEMPLATE\nx = f8  #! one\n  #! two\n");
  EXPECT_EQ(emit_layout(l), "!TEMPLATE\nx = f8  #! one\n#! two\n");
}

TEST(Emitter, ShadowedPrimitiveIsWrittenWithBar) {
  Layout l = parse_ok("i4 := { = >i4 }  x = i4  y = |i4");
  std::string text = emit_layout(l);
  EXPECT_NE(text.find("y = |i4"), std::string::npos) << text;
  EXPECT_NE(text.find("x = i4\n"), std::string::npos) << text;
  EXPECT_TRUE(parse_ok(text) == l);
}

}  // namespace
}  // namespace dudley::layout
