#include "dudley/layout/syntax/names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dudley::layout {
namespace {

TEST(NameTable, InternIsStableAndDistinct) {
  NameTable t;
  std::vector<NameId> ids;
  // Names that share long prefixes, as generated and real layouts have.
  for (int i = 0; i < 20000; ++i) ids.push_back(t.intern("field_" + std::to_string(i)));
  ASSERT_EQ(t.size(), 20000u);
  for (int i = 0; i < 20000; ++i) {
    std::string name = "field_" + std::to_string(i);
    EXPECT_EQ(t.intern(name), ids[static_cast<size_t>(i)]);
    EXPECT_EQ(t.find(name), ids[static_cast<size_t>(i)]);
    EXPECT_EQ(t.text(ids[static_cast<size_t>(i)]), name);
  }
  EXPECT_EQ(t.find("field_20000"), kNone);
  EXPECT_EQ(t.find(""), kNone);
  NameId empty = t.intern("");
  EXPECT_EQ(t.find(""), empty);
}

TEST(NameTable, LongNamesAndCopies) {
  NameTable t;
  std::string long_name(100000, 'x');
  NameId id = t.intern(long_name);
  NameTable copy = t;
  EXPECT_EQ(copy.find(long_name), id);
  EXPECT_EQ(copy.text(id).size(), long_name.size());
  EXPECT_NE(copy.text(id).data(), t.text(id).data());  // its own storage
}

}  // namespace
}  // namespace dudley::layout
