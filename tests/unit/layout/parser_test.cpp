// What the parser builds for each construct, checked on the model [C1-C24].
#include "dudley/layout/syntax/parser.hpp"

#include "dudley/layout/syntax/emitter.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

const Node& node(const Layout& l, std::string_view path) {
  NodeId id = l.find(path);
  EXPECT_NE(id, kNone) << path;
  static Node none;
  return id == kNone ? none : l.nodes[id];
}

std::vector<std::string> names(const Layout& l, NodeId container) {
  std::vector<std::string> out;
  for (NodeId c : l.children(container)) out.emplace_back(l.name(l.nodes[c].name));
  return out;
}

TEST(Parser, PrimitivesAndPrefixes) {
  Layout l = parse_ok("a = <i4  b = >f8[2]  c = |u2  d = c16");
  EXPECT_EQ(node(l, "/a").type.order, ByteOrder::kLittle);
  EXPECT_EQ(node(l, "/a").type.primitive, Primitive::i4);
  EXPECT_EQ(node(l, "/b").type.order, ByteOrder::kBig);
  EXPECT_EQ(node(l, "/c").type.order, ByteOrder::kUnspecified);
  EXPECT_EQ(node(l, "/d").type.order, ByteOrder::kUnspecified);
  EXPECT_EQ(node(l, "/d").type.primitive, Primitive::c16);
}

TEST(Parser, NoReservedWords) {  // [C1]
  Layout l = parse_ok("i4 = <u2  f8 /  x = i4");
  EXPECT_EQ(node(l, "/i4").type.primitive, Primitive::u2);
  EXPECT_EQ(node(l, "/f8/x").type.primitive, Primitive::i4);
}

TEST(Parser, PrimitiveRedefinitionBeforeUse) {  // [C4]
  Layout l = parse_ok("i4 := { = >i4 }  x = i4  y = |i4");
  TypeId t = l.find_type("i4");
  ASSERT_NE(t, kNone);
  EXPECT_EQ(node(l, "/x").type.kind, TypeRef::Kind::kUser);
  EXPECT_EQ(node(l, "/x").type.user, t);
  EXPECT_EQ(node(l, "/y").type.kind, TypeRef::Kind::kPrimitive);
  // Inside the definition, >i4 is the real primitive.
  const Node& member = l.nodes[l.types[t].body[0].index];
  EXPECT_EQ(member.type.kind, TypeRef::Kind::kPrimitive);
  EXPECT_EQ(member.type.order, ByteOrder::kBig);
  EXPECT_TRUE(l.types[t].is_typedef(l.nodes));
}

TEST(Parser, FixedAndDynamicParameters) {  // [C5, C6]
  Layout l = parse_ok("N := -3  M := 0x1F  A := <i4 @ 16  B := u8");
  auto ps = l.group_params(Layout::kRoot);
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(l.params[ps[0]].kind, ParamKind::kFixed);
  EXPECT_EQ(l.params[ps[0]].value, -3);
  EXPECT_EQ(l.params[ps[1]].value, 31);
  EXPECT_EQ(l.params[ps[2]].kind, ParamKind::kDynamic);
  EXPECT_TRUE(l.params[ps[2]].has_address);
  EXPECT_EQ(l.params[ps[2]].address, 16u);
  EXPECT_FALSE(l.params[ps[3]].has_address);
}

TEST(Parser, RedeclaredParameterOnlyAffectsLaterUses) {  // [C6]
  Layout l = parse_ok("N := 3  x = f8[N]  N := 4  y = f8[N]");
  const Dim& dx = l.dims_of(node(l, "/x").dims)[0];
  const Dim& dy = l.dims_of(node(l, "/y").dims)[0];
  EXPECT_EQ(l.params[dx.param].value, 3);
  EXPECT_EQ(l.params[dy.param].value, 4);
}

TEST(Parser, ParameterLookupSearchesAncestors) {  // [C13]
  Layout l = parse_ok("N := 3  g / M := 2  h / x = f8[N, M] .. .. ");
  auto dims = l.dims_of(node(l, "/g/h/x").dims);
  EXPECT_EQ(l.params[dims[0].param].group, Layout::kRoot);
  EXPECT_EQ(l.params[dims[1].param].group, l.find("/g"));
}

TEST(Parser, AddressesAndCursorDirectives) {  // [C7, C8]
  Layout l = parse_ok("a = f8 @ 0x100  !@ 512 b = f8  c = u1");
  EXPECT_TRUE(node(l, "/a").has_address);
  EXPECT_EQ(node(l, "/a").address, 256u);
  EXPECT_FALSE(node(l, "/b").has_address);
  ASSERT_EQ(l.cursors.size(), 1u);
  EXPECT_EQ(l.cursors[0], 512u);
  // The cursor directive sits between a and b in file order.
  ASSERT_EQ(l.statements.size(), 4u);
  EXPECT_EQ(l.statements[1].kind, Statement::Kind::kCursor);
}

TEST(Parser, GroupNavigation) {  // [C10]
  Layout l = parse_ok(
      "g / a = f4 sub / b = f4 .. c = f4 .. g / d = f4 / "
      "/g/sub/e = f4  f = f4  /x/y/ w = i1 .. v = i1 / .. .. r = u1");
  EXPECT_EQ(names(l, Layout::kRoot), (std::vector<std::string>{"g", "x", "r"}));
  EXPECT_EQ(names(l, l.find("/g")), (std::vector<std::string>{"a", "sub", "c", "d"}));
  EXPECT_EQ(names(l, l.find("/g/sub")), (std::vector<std::string>{"b", "e", "f"}));
  EXPECT_EQ(names(l, l.find("/x/y")), (std::vector<std::string>{"w"}));
  EXPECT_EQ(names(l, l.find("/x")), (std::vector<std::string>{"y", "v"}));
}

TEST(Parser, ListsItemsSublistsAnonymousGroupsAndReopening) {  // [C11, C12]
  Layout l = parse_ok(
      "L = [ = f8  = [ = i4 ]  / M := 2 x = f4[M] sub / y = u1 .. ..  / z = u1 / "
      "/ q = i2 ]  L = [ = u8 ]  E = [ ]");
  const NodeId list = l.find("/L");
  ASSERT_EQ(l.children(list).size(), 6u);
  EXPECT_EQ(node(l, "/L/0").kind, NodeKind::kData);
  EXPECT_EQ(node(l, "/L/1").kind, NodeKind::kList);
  EXPECT_EQ(node(l, "/L/1/0").type.primitive, Primitive::i4);
  EXPECT_EQ(node(l, "/L/2").kind, NodeKind::kGroup);
  EXPECT_EQ(node(l, "/L/2/sub/y").type.primitive, Primitive::u1);
  EXPECT_EQ(l.group_params(l.find("/L/2")).size(), 1u);
  EXPECT_EQ(node(l, "/L/3/z").type.primitive, Primitive::u1);
  EXPECT_EQ(node(l, "/L/4/q").type.primitive, Primitive::i2);
  EXPECT_EQ(node(l, "/L/5").type.primitive, Primitive::u8);  // appended by the reopen
  EXPECT_TRUE(l.children(l.find("/E")).empty());
  EXPECT_EQ(l.path(l.find("/L/2/sub/y")), "/L/2/sub/y");
}

TEST(Parser, AnonymousGroupSeesParametersOfTheListsGroup) {  // [C13]
  Layout l = parse_ok("g / N := 4 L = [ / x = f8[N] .. ] ..");
  const Dim& d = l.dims_of(node(l, "/g/L/0/x").dims)[0];
  EXPECT_EQ(l.params[d.param].group, l.find("/g"));
}

TEST(Parser, DimensionSuffixesAndLiterals) {  // [C14]
  Layout l = parse_ok("N := 5  a = f4[N+, N--, 2, -1]");
  auto dims = l.dims_of(node(l, "/a").dims);
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_EQ(dims[0].adjust, 1);
  EXPECT_EQ(dims[1].adjust, -2);
  EXPECT_EQ(dims[2].kind, Dim::Kind::kLiteral);
  EXPECT_EQ(dims[3].literal, -1);
}

TEST(Parser, StructsMembersOffsetsAndParameters) {  // [C16, C17]
  Layout l = parse_ok("T := { n := u4  a = f8[n] @ 8  !@ 100  b = i2  K := 3 }  x = T[2]");
  TypeId t = l.find_type("T");
  ASSERT_NE(t, kNone);
  const TypeDef& def = l.types[t];
  EXPECT_EQ(def.kind, TypeKind::kStruct);
  EXPECT_TRUE(def.has_dynamic_params);
  ASSERT_EQ(def.body.size(), 5u);
  EXPECT_EQ(def.body[0].kind, StructEntry::Kind::kParam);
  EXPECT_EQ(def.body[2].kind, StructEntry::Kind::kCursor);
  EXPECT_EQ(def.body[2].offset, 100u);
  const Node& a = l.nodes[def.body[1].index];
  EXPECT_EQ(a.kind, NodeKind::kMember);
  EXPECT_TRUE(a.has_address);
  EXPECT_EQ(a.address, 8u);
  EXPECT_EQ(l.dims_of(a.dims)[0].param, def.body[0].index);
  EXPECT_EQ(l.params[def.body[0].index].owner, t);
  EXPECT_EQ(l.params[def.body[0].index].group, kNone);
  EXPECT_FALSE(def.is_typedef(l.nodes));
}

TEST(Parser, StructFreeNamesBindWhereTheStructIsUsed) {  // [C17]
  Layout l = parse_ok("T := { a = f4[K] }  g / K := 2 x = T .. K := 7 y = T");
  TypeId t = l.find_type("T");
  ASSERT_EQ(l.types[t].free_names.size(), 1u);
  EXPECT_EQ(l.name(l.types[t].free_names[0]), "K");
  auto bx = l.bindings_of(node(l, "/g/x").bindings);
  auto by = l.bindings_of(node(l, "/y").bindings);
  ASSERT_EQ(bx.size(), 1u);
  EXPECT_EQ(l.params[bx[0]].value, 2);
  EXPECT_EQ(l.params[by[0]].value, 7);
}

TEST(Parser, NestedStructFreeNamesForwardOutward) {  // [C17]
  Layout l = parse_ok("U := { v = f4[K] }  T := { K := 2 u = U  w = U[3] }  V := { t = U }");
  const TypeDef& t = l.types[l.find_type("T")];
  const Node& u = l.nodes[t.body[1].index];
  auto b = l.bindings_of(u.bindings);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], t.body[0].index);  // T's own K
  const TypeDef& v = l.types[l.find_type("V")];
  ASSERT_EQ(v.free_names.size(), 1u);  // V passes K on to where V is used
  auto bv = l.bindings_of(l.nodes[v.body[0].index].bindings);
  EXPECT_EQ(bv[0], kOuterBinding | 0u);
}

TEST(Parser, CountedArray) {  // [C18]
  Layout l = parse_ok("string := { count := u4  = S1[count] }  text = string");
  const TypeDef& t = l.types[l.find_type("string")];
  EXPECT_TRUE(t.is_typedef(l.nodes));
  EXPECT_TRUE(t.has_dynamic_params);
}

TEST(Parser, PointersAndPointees) {  // [C19]
  Layout l = parse_ok("p = <p8  g / 17 = f8[3] @ 4096 ..  0x20 = i4");
  ASSERT_EQ(l.pointees.size(), 2u);
  EXPECT_EQ(l.pointees[0].key, 17u);
  EXPECT_EQ(l.pointees[0].address, 4096u);
  EXPECT_EQ(l.pointees[1].key, 32u);
  EXPECT_FALSE(l.pointees[1].has_address);
  // Pointees do not become group members.
  EXPECT_TRUE(l.children(l.find("/g")).empty());
}

TEST(Parser, Signature) {  // [C20]
  Layout l = parse_ok("!DUDLEY := S1[8] @ 16  x = f8");
  ASSERT_TRUE(l.signature.has_value());
  EXPECT_EQ(l.signature->address, 16u);
  EXPECT_EQ(l.statements[0].kind, Statement::Kind::kSignature);
}

TEST(Parser, ParameterBlocksAndHeterogeneousArrays) {  // [C21]
  Layout l = parse_ok(
      "NB := 3  PB := { nx := i4  ny := i4 }[NB] @ 8  K := 1  "
      "m = PB{ rho = f8[ny, nx]  u = f4[nx+, K] } @ 100");
  TypeId pb = l.find_type("PB");
  const TypeDef& block = l.types[pb];
  EXPECT_EQ(block.kind, TypeKind::kParamBlock);
  EXPECT_TRUE(block.has_shape);
  EXPECT_EQ(block.address, 8u);
  EXPECT_EQ(l.params[l.dims_of(block.dims)[0].param].value, 3);
  const Node& m = node(l, "/m");
  ASSERT_EQ(m.type.kind, TypeRef::Kind::kUser);
  const TypeDef& body = l.types[m.type.user];
  EXPECT_EQ(body.kind, TypeKind::kHeteroBody);
  EXPECT_EQ(body.block, pb);
  const Node& rho = l.nodes[body.body[0].index];
  EXPECT_EQ(l.params[l.dims_of(rho.dims)[0].param].owner, pb);  // ny of the block
  EXPECT_EQ(m.address, 100u);
  // K of the body is resolved in the group, where m is declared.
  const Node& u = l.nodes[body.body[1].index];
  EXPECT_EQ(l.dims_of(u.dims)[1].kind, Dim::Kind::kFreeName);
  ASSERT_EQ(l.bindings_of(m.bindings).size(), 1u);
  EXPECT_EQ(l.params[l.bindings_of(m.bindings)[0]].value, 1);
  // A name that is neither a block parameter nor in scope is an error.
  EXPECT_FALSE(parse_layout("PB := { n := i4 }  m = PB{ a = f4[K] }").ok());
}

TEST(Parser, TemplateDirective) {  // [C22]
  Layout l = parse_ok("!TEMPLATE N := i4 x = f8[N]");
  EXPECT_TRUE(l.template_directive);
}

TEST(Parser, DocumentComments) {  // [C24]
  Layout l = parse_ok(
      "N := i4  #! count\n"
      "         #!   more  \n"
      "#! and more\n"
      "x = f8[N] #! positions\n"
      "g /  #! a group\n"
      "  #! continued\n"
      "  y = f4\n"
      "T := { #! struct\n"
      "  a = f4 #! member\n"
      "}\n");
  EXPECT_EQ(l.doc(l.params[0].doc), "count\nmore\nand more");
  EXPECT_EQ(l.doc(node(l, "/x").doc), "positions");
  EXPECT_EQ(l.doc(node(l, "/g").doc), "a group\ncontinued");
  EXPECT_EQ(node(l, "/g/y").doc, 0u);
  const TypeDef& t = l.types[l.find_type("T")];
  EXPECT_EQ(l.doc(t.doc), "struct");
  EXPECT_EQ(l.doc(l.nodes[t.body[0].index].doc), "member");
  // A doc before anything is declared is ignored.
  Layout e = parse_ok("#! orphan\nx = f8");
  EXPECT_EQ(node(e, "/x").doc, 0u);
}

// Attributes (docs/design/layout-attributes.md) attach as docs do; before any declaration
// they are the file's (the root's).
std::vector<std::string> attribute_names(const Layout& l, Span span) {
  std::vector<std::string> out;
  for (const AttributeSource& a : l.attributes_of(span)) {
    ParsedAttribute read;
    AttributeTextError error;
    EXPECT_TRUE(l.read_attribute(a, read, error)) << l.attribute_source(a);
    out.push_back(read.name);
  }
  return out;
}

ParseResult checked(std::string_view text) {
  ParseOptions options;
  options.check_attributes = true;
  return parse_layout(text, options);
}

TEST(Parser, AttributesAttachToTheItemBeforeThem) {
  Layout l = parse_ok(
      "#@ title: \"run 7\"\n"
      "N := i4  #@ long_name: \"cells\"\n"
      "x = <f4[N]  #! temperature\n"
      "  #@ units: \"K\"\n"
      "  #@ _FillValue: <f4 1e20\n"
      "g /\n"
      "  #@ about: \"a group\"\n"
      "  y = f4\n"
      "..\n"
      "T := {  #@ kind: \"struct\"\n"
      "  a = f4  #@ units: \"m\"\n"
      "}\n"
      "L = [  #@ role: \"history\"\n"
      "  = f4[2]  #@ step: 0\n"
      "]\n"
      "g /  #@ again: true\n"
      "..\n");
  using V = std::vector<std::string>;
  EXPECT_EQ(attribute_names(l, l.nodes[Layout::kRoot].attributes), V{"title"});
  EXPECT_EQ(attribute_names(l, l.params[0].attributes), V{"long_name"});
  EXPECT_EQ(attribute_names(l, node(l, "/x").attributes), (V{"units", "_FillValue"}));
  EXPECT_EQ(l.doc(node(l, "/x").doc), "temperature");
  // A reopened group gains the attributes given where it is reopened.
  EXPECT_EQ(attribute_names(l, node(l, "/g").attributes), (V{"about", "again"}));
  EXPECT_TRUE(attribute_names(l, node(l, "/g/y").attributes).empty());
  const TypeDef& t = l.types[l.find_type("T")];
  EXPECT_EQ(attribute_names(l, t.attributes), V{"kind"});
  EXPECT_EQ(attribute_names(l, l.nodes[t.body[0].index].attributes), V{"units"});
  EXPECT_EQ(attribute_names(l, node(l, "/L").attributes), V{"role"});
  EXPECT_EQ(attribute_names(l, node(l, "/L/0").attributes), V{"step"});
  // The value is typed: float32 little endian, 1e20 as float32 rounds it.
  ParsedAttribute read;
  AttributeTextError error;
  ASSERT_TRUE(l.read_attribute(l.attributes_of(node(l, "/x").attributes)[1], read, error));
  EXPECT_EQ(l.attributes_of(node(l, "/x").attributes)[1].pos.line, 5u);
  const auto& fill = std::get<NDArray>(read.value);
  EXPECT_EQ(fill.dtype(), DType::float_(4, ByteOrder::kLittle));
  EXPECT_EQ(fill.get<float>({}), 1e20F);
}

TEST(Parser, ALayoutWithoutAttributesHasNone) {
  Layout l = parse_ok("# a comment\nx = f8  # not an attribute: #@ x: 1\n");
  EXPECT_TRUE(l.attributes.empty());
}

TEST(Parser, AnAttributeGivenTwiceToOneItemIsAnError) {
  // Names are known when attributes are checked (dudley check); the binder finds the rest.
  EXPECT_TRUE(parse_layout("x = f8\n#@ units: \"K\"\n#@ units: \"m\"\n").ok());
  EXPECT_TRUE(parse_layout("x = f8  #@ units K\n").ok());
  EXPECT_EQ(checked("x = f8  #@ units K\n").diagnostics.at(0).code, DiagCode::kBadAttribute);
  ParseResult r = checked("x = f8\n#@ units: \"K\"\n#@ units: \"m\"\ny = f8  #@ units: \"s\"\n");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, DiagCode::kDuplicateAttribute);
  EXPECT_EQ(r.diagnostics[0].line, 3u);
  EXPECT_EQ(r.diagnostics[0].column, 1u);
  // On the file's root too, with many names.
  std::string many;
  for (int i = 0; i < 40; ++i) many += "#@ a" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  EXPECT_TRUE(checked(many).ok());
  ParseResult twice = checked(many + "#@ a17: 1\n");
  ASSERT_EQ(twice.diagnostics.size(), 1u);
  EXPECT_EQ(twice.diagnostics[0].line, 41u);
}

// One error too many found while the last attributes are attached (after the parse stopped
// at the limit) ends the parse like any other: it was std::terminate (dudley_parse fuzz).
TEST(Parser, AnAttributeErrorPastTheLimitStopsCleanly) {
  ParseOptions options;
  options.check_attributes = true;
  options.max_errors = 1;
  ParseResult r = parse_layout("x = f8  #@ a: 1\n  #@ a: 2\n", options);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, DiagCode::kDuplicateAttribute);
  ParseResult s = parse_layout("x = f8  #@ a: 1\n  #@ a: 2\n  #@ a: 3\n", options);
  EXPECT_EQ(s.diagnostics.back().code, DiagCode::kTooManyErrors);
}

// A group reopened between its attributes: each item's attributes are regrouped once at the
// end (appending each to its item's run was quadratic: 20,000 reopenings took 50 s).
TEST(Parser, AttributesOfAReopenedGroupStayTheGroups) {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "g /\n#@ a" + std::to_string(i) + ": " + std::to_string(i) + "\n  x" +
            std::to_string(i) + " = u1\n  #@ b: 1\n..\n";
  }
  ParseOptions options;
  options.check_attributes = true;
  ParseResult r = parse_layout(text, options);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().message;
  const Layout& l = r.layout;
  const auto names = attribute_names(l, node(l, "/g").attributes);
  ASSERT_EQ(names.size(), 3000u);
  EXPECT_EQ(names.front(), "a0");
  EXPECT_EQ(names.back(), "a2999");
  EXPECT_EQ(attribute_names(l, node(l, "/g/x1234").attributes), std::vector<std::string>{"b"});
  EXPECT_EQ(parse_ok(emit_layout(l)), l);
}

TEST(Parser, LayoutsDifferingOnlyInAttributesAreNotEqual) {
  EXPECT_EQ(parse_ok("x = f8 #@ a: 1"), parse_ok("x = f8\n  #@ a: 1\n"));
  EXPECT_FALSE(parse_ok("x = f8 #@ a: 1") == parse_ok("x = f8 #@ a: 2"));
  EXPECT_FALSE(parse_ok("x = f8 #@ a: 1") == parse_ok("x = f8 #@ a: i8 1"));
  EXPECT_FALSE(parse_ok("x = f8 #@ a: 1") == parse_ok("x = f8"));
  EXPECT_FALSE(parse_ok("x = f8 #@ a: <f8 0x7ff8000000000001") == parse_ok("x = f8 #@ a: <f8 nan"));
  EXPECT_EQ(parse_ok("x = f8 #@ a: <f8 0x7ff8000000000001"),
            parse_ok("x = f8 #@ a: <f8 0x7ff8000000000001"));
}

TEST(Parser, PositionsAreLineAndColumn) {
  Layout l = parse_ok("\n\n   x = f8\n  g /\n");
  EXPECT_EQ(node(l, "/x").pos.line, 3u);
  EXPECT_EQ(node(l, "/x").pos.column, 4u);
  EXPECT_EQ(node(l, "/g").pos.line, 4u);
}

TEST(Parser, EmptyAndCommentOnlyLayouts) {
  EXPECT_EQ(parse_ok("").nodes.size(), 1u);
  EXPECT_EQ(parse_ok("# nothing\n\n").nodes.size(), 1u);
}

}  // namespace
}  // namespace dudley::layout
