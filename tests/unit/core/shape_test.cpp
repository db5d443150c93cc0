#include "dudley/core/shape.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"

namespace dudley {
namespace {

TEST(Shape, CountsAndStrides) {
  Shape s{3, 2};
  EXPECT_EQ(s.rank(), 2u);
  EXPECT_EQ(*s.element_count(), 6u);
  EXPECT_EQ(*s.byte_size(8), 48u);
  EXPECT_EQ(s.c_strides(8), (std::vector<int64_t>{16, 8}));
  // No elements, but dimensions whose product overflows (found by dudley_model): the strides
  // saturate rather than wrap (UBSan checks this in the sanitizer build).
  const Shape empty({1010000, 0, 10, 0});
  const std::vector<int64_t> st = empty.c_strides(1000000000000);
  EXPECT_EQ(st[3], 1000000000000);
  EXPECT_EQ(st[1], 10000000000000);
  EXPECT_EQ(st[0], 10000000000000);
  EXPECT_EQ(s.to_string(), "[3, 2]");
  EXPECT_EQ(*Shape{}.element_count(), 1u);  // scalar
  EXPECT_EQ(*Shape({4, 0, 5}).element_count(), 0u);
  EXPECT_TRUE(Shape({4, 0}).empty_data());
}

TEST(Shape, DetectsOverflow) {
  Shape huge{1LL << 40, 1LL << 40};
  EXPECT_FALSE(huge.element_count().has_value());
  Shape big{1LL << 62};
  EXPECT_TRUE(big.element_count().has_value());
  EXPECT_FALSE(big.byte_size(8).has_value());
  EXPECT_FALSE(checked_add(~uint64_t{0}, 1).has_value());
  EXPECT_EQ(*checked_mul(3, 5), 15u);
}

TEST(Shape, RejectsNegativeDimensions) {
  EXPECT_THROW(Shape({2, -1}), Error);
}

}  // namespace
}  // namespace dudley
