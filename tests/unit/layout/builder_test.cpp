// The layout builder: the layouts it builds equal the same layouts written as text, every
// construct of the language can be built, and mistakes are reported at the call that made
// them (or, for whole-layout rules, with the line of the built text).
#include "dudley/layout/syntax/builder.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LayoutBuilder, EveryConstructEqualsTheSameLayoutWrittenAsText) {
  LayoutBuilder b;
  b.signature().param("NX", "i4").doc("cells along x").param("NB", 2);
  b.struct_type("string").param("n", "u4").data("", "S1", {"n"}).end();
  b.struct_type("Vec").data("x", "f8").data("y", "f8", {}, 8).end();
  b.param_block("PB", {"NB"}).param("m", "i4").end();
  b.group("mesh").data("x", "f8", {"NX"}).doc("cell centres").doc("in metres");
  b.data("edges", "f8", {"NX+"}).data("corner", ">i2", {2, "NX-"}).end();
  b.list("history").item("f4", {"NX"}).item_group().data("t", "f8").end();
  b.item_list().item("u1").end().end();
  b.data("label", "string").data("v", "Vec", {3}).heterogeneous("blocks", "PB");
  b.data("rho", "f4", {"m"}).end();
  b.data("refs", "p8", {2}).cursor(4096).pointee(17, "f8", {4}, 8192);
  b.list("history").item("i8").end();  // reopened: appends
  const Layout built = b.build();
  const Layout written = parse_ok(
      "!DUDLEY := S1[8]\n"
      "NX := i4  #! cells along x\n"
      "NB := 2\n"
      "string := { n := u4  = S1[n] }\n"
      "Vec := { x = f8  y = f8 @ 8 }\n"
      "PB := { m := i4 }[NB]\n"
      "mesh /\n"
      "  x = f8[NX]  #! cell centres\n"
      "  #! in metres\n"
      "  edges = f8[NX+]\n"
      "  corner = >i2[2, NX-]\n"
      "..\n"
      "history = [\n"
      "  = f4[NX]\n"
      "  / t = f8 ..\n"
      "  = [ = u1 ]\n"
      "]\n"
      "label = string\n"
      "v = Vec[3]\n"
      "blocks = PB{ rho = f4[m] }\n"
      "refs = p8[2]\n"
      "!@ 4096\n"
      "17 = f8[4] @ 8192\n"
      "history = [ = i8 ]\n");
  EXPECT_EQ(built, written) << b.text();
  EXPECT_EQ(built.doc(built.nodes[built.find("/mesh/x")].doc), "cell centres\nin metres");
  EXPECT_EQ(emit_layout(built), emit_layout(written));
}

TEST(LayoutBuilder, TemplatesAndOpenScopesClosedByText) {
  LayoutBuilder b;
  b.template_directive().signature().param("N", "i8").group("g").list("L").item("f8", {"N"});
  const std::string text = b.text();  // g and L are still open: text() closes them
  EXPECT_EQ(text, "!TEMPLATE\n!DUDLEY := S1[8]\nN := i8\ng /\n  L = [\n    = f8[N]\n  ]\n..\n");
  const Layout l = b.build();
  EXPECT_TRUE(l.template_directive);
  EXPECT_NE(l.find("/g/L/0"), kNone);
}

TEST(LayoutBuilder, NamesSpelledLikePrimitivesAreData) {
  LayoutBuilder b;
  b.data("i4", "<u2").group("f8").param("S1", 3).data("u1", "f4", {"S1"}).end();
  const Layout l = b.build();
  EXPECT_NE(l.find("/i4"), kNone);
  EXPECT_NE(l.find("/f8/u1"), kNone);
}

TEST(LayoutBuilder, MistakesAreNamedAtTheCall) {
  LayoutBuilder b;
  EXPECT_NE(error_of([&] { b.data("2x", "f8"); }).find("'2x' is not a Dudley name"),
            std::string::npos);
  // Data may be named like a primitive [C1]; a new type may not (it would redefine it).
  EXPECT_NE(error_of([&] { b.struct_type("f8"); }).find("a primitive type's name"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.data("x", "f 8"); }).find("'f 8' is not a type"), std::string::npos);
  EXPECT_NE(error_of([&] { b.data("x", "f8", {"N*"}); }).find("not a Dudley name"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.end(); }).find("nothing is open"), std::string::npos);
  EXPECT_NE(error_of([&] { b.doc("x"); }).find("no declaration"), std::string::npos);
  EXPECT_NE(error_of([&] { b.item("f8"); }).find("list item cannot be declared inside a group"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.pointee(0, "f8"); }).find("reserved for NULL"), std::string::npos);
  b.data("x", "f8");
  EXPECT_NE(error_of([&] { b.template_directive(); }).find("before every declaration"),
            std::string::npos);
  b.group("g");
  EXPECT_NE(error_of([&] { b.pointee(5, "f8"); }).find("at the root"), std::string::npos);
  // A whole-layout rule: build() names the line of the built text.
  b.data("y", "f8", {"M"});
  const std::string e = error_of([&] { (void)b.build(); });
  EXPECT_NE(e.find("built layout, line 3 (  y = f8[M])"), std::string::npos) << e;
  EXPECT_NE(e.find("'M'"), std::string::npos) << e;
}

}  // namespace
}  // namespace dudley::layout
