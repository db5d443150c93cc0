// Member names as outputs write them (issue 62): a name from a file is data, never a path.
#include "dudley/model/member_names.hpp"

#include <gtest/gtest.h>

namespace dudley::model {
namespace {

TEST(MemberNames, KeysNeverClimbOrHoldControls) {
  for (const char* ok : {"x", "a b", "-", "...x", "x..", "caf\xc3\xa9", "__init"}) {
    EXPECT_FALSE(name_problem(ok, NameUse::kKey)) << ok;
  }
  EXPECT_EQ(*name_problem("", NameUse::kKey), "is empty");
  for (const char* dots : {".", "..", "..."}) {
    EXPECT_NE(name_problem(dots, NameUse::kKey)->find("dots only"), std::string::npos);
  }
  for (const char* slash : {"../../ESC", "/abs", "a/b", "x/"}) {
    EXPECT_NE(name_problem(slash, NameUse::kKey)->find("'/'"), std::string::npos) << slash;
  }
  EXPECT_EQ(*name_problem("a\nb", NameUse::kKey), "holds a control character");
  EXPECT_EQ(*name_problem("a\x7f", NameUse::kKey), "holds a control character");
  EXPECT_EQ(*name_problem(std::string_view("a\0b", 3), NameUse::kKey), "holds a NUL character");
}

TEST(MemberNames, LinkNamesAndDocumentKeys) {
  // HDF5: '..' is a name like any (HDF5 paths do not climb); '.' is the group itself.
  EXPECT_FALSE(name_problem("..", NameUse::kLinkName));
  EXPECT_FALSE(name_problem("a\nb", NameUse::kLinkName));
  EXPECT_TRUE(name_problem(".", NameUse::kLinkName));
  EXPECT_TRUE(name_problem("a/b", NameUse::kLinkName));
  EXPECT_TRUE(name_problem("", NameUse::kLinkName));
  // YAML keys: any text but NUL.
  EXPECT_FALSE(name_problem("a/b", NameUse::kDocumentKey));
  EXPECT_FALSE(name_problem("", NameUse::kDocumentKey));
  EXPECT_TRUE(name_problem(std::string_view("\0", 1), NameUse::kDocumentKey));
}

TEST(MemberNames, RepeatedNamesAndFormatRules) {
  MemberNames names(NameUse::kKey, [](std::string_view n) -> std::optional<std::string> {
    if (n == "zarr.json") return std::string("is a metadata document's name");
    return std::nullopt;
  });
  EXPECT_FALSE(names.refuse("x"));
  EXPECT_EQ(*names.refuse("x"), "member 'x': a second member of that name");
  EXPECT_EQ(*names.refuse("zarr.json"),
            "member 'zarr.json': its name is a metadata document's name");
  EXPECT_EQ(*names.refuse(".."),
            "member '..': its name is made of dots only, which a path reads "
            "as this folder or the one above");
  EXPECT_FALSE(names.refuse("y"));
  // Names a format respells alike are repeated names too.
  MemberNames spelled(NameUse::kDocumentKey, {}, [](std::string_view n) {
    std::string out(n);
    for (char& c : out) c = c == '-' ? '_' : c;
    return out;
  });
  EXPECT_FALSE(spelled.refuse("a_b"));
  EXPECT_EQ(*spelled.refuse("a-b"),
            "member 'a-b': a second member of that name (as this format "
            "spells it)");
}

TEST(MemberNames, QuotedNamesShowEveryByte) {
  EXPECT_EQ(quoted_name("x"), "'x'");
  EXPECT_EQ(quoted_name("n\nw = u1[4] @ 0\ng /"), "'n\\nw = u1[4] @ 0\\ng /'");
  EXPECT_EQ(quoted_name("it's"), "'it\\'s'");
  EXPECT_EQ(quoted_name("a\\b"), "'a\\\\b'");
  EXPECT_EQ(quoted_name("\x1b[31m"), "'\\x1b[31m'");
  EXPECT_EQ(quoted_name("\xb5m caf\xc3\xa9"), "'\\xb5m caf\xc3\xa9'");  // Latin-1 byte, UTF-8 kept
}

}  // namespace
}  // namespace dudley::model
