// Item paths: joining a member to its group, and which paths lead to or lie below another.
#include <gtest/gtest.h>

#include "dudley/core/path.hpp"

namespace dudley {
namespace {

TEST(RelatedPaths, AncestorsSelfAndDescendants) {
  EXPECT_TRUE(related_paths("/", "/g/x"));
  EXPECT_TRUE(related_paths("/g", "/g/x"));
  EXPECT_TRUE(related_paths("/g/x", "/g/x"));
  EXPECT_TRUE(related_paths("/g/x/y", "/g/x"));
  EXPECT_TRUE(related_paths("/a/b", "/"));
  EXPECT_FALSE(related_paths("/gx", "/g/x"));
  EXPECT_FALSE(related_paths("/g/xy", "/g/x"));
  EXPECT_FALSE(related_paths("/h", "/g"));
}

TEST(JoinPath, RootAndGroups) {
  EXPECT_EQ(join_path("/", "x"), "/x");
  EXPECT_EQ(join_path("/g/h", "x"), "/g/h/x");
}

}  // namespace
}  // namespace dudley
