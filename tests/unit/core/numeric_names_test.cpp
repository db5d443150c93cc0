// The one table of numeric type names (core/numeric_names.hpp) ASDF, NDL and Zarr share.
#include "dudley/core/numeric_names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dudley {
namespace {

TEST(NumericNames, EveryNameRoundTripsThroughItsType) {
  ASSERT_EQ(numeric_type_names().size(), 13u);
  for (std::string_view name : numeric_type_names()) {
    const std::optional<DType> t = numeric_type_named(name, ByteOrder::kBig);
    ASSERT_TRUE(t) << name;
    EXPECT_EQ(numeric_type_name(*t), name);
    // numpy's names say the bits: int16 is 2 bytes, complex64 8.
    std::string digits;
    for (char c : name) {
      if (c >= '0' && c <= '9') digits += c;
    }
    EXPECT_EQ(std::stoul(digits), t->size() * 8) << name;
  }
}

TEST(NumericNames, TypesAndOrders) {
  EXPECT_EQ(*numeric_type_named("uint32", ByteOrder::kLittle), DType::uint(4, ByteOrder::kLittle));
  EXPECT_EQ(*numeric_type_named("float16", ByteOrder::kBig), DType::float_(2, ByteOrder::kBig));
  EXPECT_EQ(*numeric_type_named("complex128", ByteOrder::kLittle),
            DType::complex(16, ByteOrder::kLittle));
  // One-byte integers have no byte order.
  EXPECT_EQ(numeric_type_named("int8", ByteOrder::kBig)->byte_order(), ByteOrder::kNotApplicable);
}

TEST(NumericNames, OtherNamesAndTypesHaveNone) {
  for (const char* name : {"", "int", "int128", "float", "bool", "bool8", "Int8", "int8 "}) {
    EXPECT_FALSE(numeric_type_named(name, ByteOrder::kLittle)) << name;
  }
  EXPECT_FALSE(numeric_type_name(DType::boolean()));
  EXPECT_FALSE(numeric_type_name(DType::string(TextEncoding::kAscii, 4)));
  EXPECT_FALSE(numeric_type_name(DType::complex(4, ByteOrder::kLittle)));  // a pair of float16
}

}  // namespace
}  // namespace dudley
