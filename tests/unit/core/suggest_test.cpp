// Edit distances checked by hand, and which names count as likely typos.
#include "dudley/core/suggest.hpp"

#include <gtest/gtest.h>

namespace dudley {
namespace {

TEST(Suggest, EditDistanceCountsEachKindOfEditOnce) {
  EXPECT_EQ(edit_distance("count", "count", 3), 0u);
  EXPECT_EQ(edit_distance("count", "cont", 3), 1u);    // deletion
  EXPECT_EQ(edit_distance("count", "counts", 3), 1u);  // insertion
  EXPECT_EQ(edit_distance("count", "mount", 3), 1u);   // substitution
  EXPECT_EQ(edit_distance("count", "cuont", 3), 1u);   // swap of neighbours
  EXPECT_EQ(edit_distance("kitten", "sitting", 5), 3u);
  EXPECT_EQ(edit_distance("", "abc", 5), 3u);
}

TEST(Suggest, EditDistanceStopsBeyondTheLimit) {
  EXPECT_EQ(edit_distance("kitten", "sitting", 2), 3u);  // limit + 1
  EXPECT_EQ(edit_distance("a", "abcdefgh", 2), 3u);
  EXPECT_EQ(edit_distance("abcdef", "ghijkl", 1), 2u);
}

TEST(Suggest, NearestNameIsALikelyTypo) {
  const std::vector<std::string> names = {"count", "Point", "N", "temperature"};
  EXPECT_EQ(nearest_name("cuont", names), "count");
  EXPECT_EQ(nearest_name("Pont", names), "Point");
  EXPECT_EQ(nearest_name("temprature", names), "temperature");
  EXPECT_EQ(nearest_name("n", names), "N");  // case alone
  EXPECT_EQ(nearest_name("M", names), "");   // one letter is never near another one
  EXPECT_EQ(nearest_name("pressure", names), "");
  EXPECT_EQ(did_you_mean("cuont", names), " (did you mean 'count'?)");
  EXPECT_EQ(did_you_mean("xyz", names), "");
}

}  // namespace
}  // namespace dudley
