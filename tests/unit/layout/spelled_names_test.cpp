// Names of other formats' trees respelled for a Dudley layout (convert to Dudley).
#include <gtest/gtest.h>

#include <set>

#include "dudley/layout/syntax/layout.hpp"
#include "layout/write/spelled_names.hpp"

namespace dudley::layout {
namespace {

TEST(SpelledNames, DudleyNamesAreKeptOthersRespelled) {
  const std::vector<std::string> out =
      dudley_spellings({"x", "a/b", "1x", "", "g.h", "i4", "_ok", "é"});
  EXPECT_EQ(out, (std::vector<std::string>{"x", "a_b", "_1x", "_", "g_h", "i4", "_ok", "__"}));
  for (const std::string& name : out) EXPECT_TRUE(is_dudley_name(name)) << name;
}

TEST(SpelledNames, AValidNameKeepsItsSpellingWhateverComesFirst) {
  // 'a b' respells to 'a_b', which a later sibling already holds: the later one keeps it.
  EXPECT_EQ(dudley_spellings({"a b", "a_b", "a-b", "a_b_2"}),
            (std::vector<std::string>{"a_b_3", "a_b", "a_b_4", "a_b_2"}));
}

TEST(SpelledNames, ManyCollisionsStayUniqueAndLinear) {
  // 100,000 names that all respell to 'a_' (each probe would restart at _2 if quadratic).
  std::vector<std::string> names;
  for (int i = 0; i < 100000; ++i) names.push_back("a" + std::string(1 + i % 3, ' '));
  std::vector<std::string_view> views(names.begin(), names.end());
  const std::vector<std::string> out = dudley_spellings(views);
  std::set<std::string> unique(out.begin(), out.end());
  EXPECT_EQ(unique.size(), out.size());
}

TEST(SpelledNames, StructFieldsAreRenamedInsideNestedCompounds) {
  const DType inner =
      DType::compound({{"x y", std::make_shared<const DType>(DType::int_(1)), 0, {}},
                       {"2", std::make_shared<const DType>(DType::int_(1)), 1, {}}});
  const DType outer =
      DType::compound({{"in", std::make_shared<const DType>(inner), 0, {}},
                       {"z", std::make_shared<const DType>(DType::float_(4)), 4, {3}}},
                      16, "outer");
  std::vector<int64_t> shape{5};
  const DType renamed = in_dudley_terms(outer, shape);
  EXPECT_EQ(shape, std::vector<int64_t>{5});
  ASSERT_EQ(renamed.fields().size(), 2u);
  EXPECT_EQ(renamed.name(), "outer");
  EXPECT_EQ(renamed.size(), 16u);
  EXPECT_EQ(renamed.fields()[1].shape, std::vector<int64_t>{3});
  EXPECT_EQ(renamed.fields()[1].offset, 4u);
  const DType& in = *renamed.fields()[0].type;
  ASSERT_EQ(in.fields().size(), 2u);
  EXPECT_EQ(in.fields()[0].name, "x_y");
  EXPECT_EQ(in.fields()[1].name, "_2");
  EXPECT_EQ(in_dudley_terms(DType::int_(4), shape), DType::int_(4));
  // A fixed-length string is code units along one more dimension.
  std::vector<int64_t> none;
  EXPECT_EQ(in_dudley_terms(DType::string(TextEncoding::kAscii, 3), none),
            DType::text(TextEncoding::kAscii, 1));
  EXPECT_EQ(none, std::vector<int64_t>{3});
}

}  // namespace
}  // namespace dudley::layout
