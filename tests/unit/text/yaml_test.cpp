// YAML 1.1 scalar rules (checked against PyYAML 6, the reference library's loader, in the
// format notes) and the parser's limits.
#include <gtest/gtest.h>

#include <cmath>

#include "dudley/text/yaml.hpp"

namespace dudley::yaml {
namespace {

using model::Value;

Value plain(const std::string& text) {
  YamlDocument doc = parse_yaml("x: " + text + "\n", "t.yaml");
  return scalar_value(*doc.root->find("x"), "t.yaml");
}

TEST(AsdfYaml, PlainScalarsFollowYaml11) {
  EXPECT_EQ(plain("42"), Value(42));
  EXPECT_EQ(plain("-17"), Value(-17));
  EXPECT_EQ(plain("017"), Value(15));  // octal
  EXPECT_EQ(plain("0x1F"), Value(31));
  EXPECT_EQ(plain("0b101"), Value(5));
  EXPECT_EQ(plain("1:20"), Value(80));  // base 60
  EXPECT_EQ(plain("1_000"), Value(1000));
  EXPECT_EQ(plain("18446744073709551615"), Value(uint64_t{18446744073709551615u}));
  EXPECT_EQ(plain("-9223372036854775808"), Value(INT64_MIN));
  EXPECT_EQ(plain("99999999999999999999").tag(), std::string(yaml_tags::kInt));
  EXPECT_EQ(plain("yes"), Value(true));
  EXPECT_EQ(plain("Off"), Value(false));
  EXPECT_EQ(plain("~"), Value());
  EXPECT_EQ(plain("null"), Value());
  EXPECT_EQ(plain("1.5"), Value(1.5));
  EXPECT_EQ(plain("1.0e+10"), Value(1.0e10));
  EXPECT_EQ(plain("-.inf"), Value(-INFINITY));
  EXPECT_TRUE(std::isnan(plain(".nan").as<double>()));
  // Strings in YAML 1.1 (PyYAML agrees): no '.', unsigned exponent, other spellings.
  EXPECT_EQ(plain("1e10"), Value("1e10"));
  EXPECT_EQ(plain("1.0e10"), Value("1.0e10"));
  EXPECT_EQ(plain("NaN"), Value("NaN"));
  EXPECT_EQ(plain("inf"), Value("inf"));
  EXPECT_EQ(plain("0o17"), Value("0o17"));
  EXPECT_EQ(plain("y"), Value("y"));
  EXPECT_EQ(plain("'yes'"), Value("yes"));  // quoted: always a string
  EXPECT_EQ(plain("!!str 12"), Value("12"));
  EXPECT_EQ(plain("!!float 1e10"), Value(1e10));
  EXPECT_EQ(plain("!!binary aGk="), Value(model::ValueBytes{'h', 'i'}));
  EXPECT_THROW(plain("!!int abc"), Error);
}

TEST(AsdfYaml, TagsAreExpandedAndKept) {
  YamlDocument doc = parse_yaml(
      "%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n"
      "c: !core/complex-1.0.0 (1+2j)\n...\n",
      "t.yaml");
  EXPECT_EQ(doc.root->tag, "tag:stsci.edu:asdf/core/asdf-1.1.0");
  Value c = scalar_value(*doc.root->find("c"), "t.yaml");
  EXPECT_EQ(c.tag(), "tag:stsci.edu:asdf/core/complex-1.0.0");
  EXPECT_EQ(c.as<std::string>(), "(1+2j)");
}

TEST(AsdfYaml, AliasesShareTheirNode) {
  YamlDocument doc = parse_yaml("a: &x {k: [1, 2]}\nb: *x\n", "t.yaml");
  EXPECT_EQ(doc.root->find("a"), doc.root->find("b"));
  EXPECT_THROW(parse_yaml("a: *nope\n", "t.yaml"), Error);
  EXPECT_THROW(parse_yaml("a: &x [1, *x]\n", "t.yaml"), Error);  // a node cannot hold itself
}

TEST(AsdfYaml, ErrorsNameLineAndColumn) {
  try {
    parse_yaml("a: 1\nb: [1, 2\n", "t.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kSyntax);
    EXPECT_EQ(e.location().path, "t.yaml");
    EXPECT_GE(e.location().line, 2u);
  }
}

TEST(AsdfYaml, DeepNestingIsRefused) {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  EXPECT_THROW(parse_yaml("a: " + deep + "\n", "t.yaml"), Error);
}

TEST(AsdfYaml, AliasBombStopsAtTheBudget) {
  // Nine levels of ten aliases: 10^9 nodes when expanded, from a few hundred bytes.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  YamlDocument doc = parse_yaml(text, "bomb.yaml");
  ExpansionBudget budget(doc, "bomb.yaml");
  try {
    to_value(*doc.root, "bomb.yaml", budget);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kLimit);
  }
}

// Anchors that reference earlier anchors build trees far deeper than the text: 80 anchors of
// 250 lists each would be 20,000 levels, enough to overflow any recursive walk.
TEST(AsdfYaml, DepthCountsWhatAliasesHold) {
  std::string text = "a0: &a0 1\n";
  for (int i = 1; i <= 80; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " " + std::string(250, '[') +
            "*a" + std::to_string(i - 1) + std::string(250, ']') + "\n";
  }
  try {
    parse_yaml(text, "deep.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.location().line, 3u) << e.what();  // the second anchor is the first too deep
    EXPECT_NE(std::string(e.what()).find("counting what its aliases hold"), std::string::npos)
        << e.what();
  }
  // Within the limit through aliases: read, and the height is the tree's.
  YamlDocument doc = parse_yaml("a: &x [[1]]\nb: [[*x]]\n", "t.yaml");
  EXPECT_EQ(doc.root->find("b")->height, 4);
}

TEST(AsdfYaml, DuplicateKeysAreErrorsAtTheSecond) {
  try {
    parse_yaml("a: 1\nb: 2\na: 3\n", "t.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "t.yaml:3:1: error: duplicate key 'a' (first at line 1)");
  }
  EXPECT_THROW(parse_yaml("g: {x: 1, y: 2, x: 3}\n", "t.yaml"), Error);
  // Many keys (the hashed path) with the repeat at the end.
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "k" + std::to_string(i) + ": 0\n";
  EXPECT_NO_THROW(parse_yaml(many, "t.yaml"));
  try {
    parse_yaml(many + "k7: 1\n", "t.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("t.yaml:1001:1: error: duplicate key 'k7' (first at line 8)"),
        std::string::npos)
        << e.what();
  }
  // The same text under two keys is no repeat; aliased values are not keys.
  EXPECT_NO_THROW(parse_yaml("a: &v 1\nb: *v\n", "t.yaml"));
}

}  // namespace
}  // namespace dudley::yaml
