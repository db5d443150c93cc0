#include "layout/syntax/flat_map.hpp"

#include <gtest/gtest.h>

#include <unordered_map>

namespace dudley::layout {
namespace {

TEST(FlatMap64, AgreesWithStdUnorderedMapThroughRehashes) {
  FlatMap64 map(4);  // starts tiny: forces many rehashes
  std::unordered_map<uint64_t, uint32_t> reference;
  uint64_t state = 42;
  for (uint32_t i = 0; i < 50000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t key = (state >> 40) << 32 | (state & 0xFFF);  // (scope, name)-like keys
    map.set(key, i);
    reference[key] = i;
  }
  for (const auto& [key, value] : reference) ASSERT_EQ(map.find(key), value);
  EXPECT_EQ(map.find(0xDEADBEEFull << 32), FlatMap64::kMissing);
}

TEST(FlatMap64, InsertKeepsTheFirstValue) {
  FlatMap64 map;
  EXPECT_EQ(map.insert(7, 1), 1u);
  EXPECT_EQ(map.insert(7, 2), 1u);
  map.set(7, 3);
  EXPECT_EQ(map.find(7), 3u);
  EXPECT_EQ(map.insert(0, 9), 9u);  // key 0 is an ordinary key
  EXPECT_EQ(map.find(0), 9u);
}

}  // namespace
}  // namespace dudley::layout
