#include "dudley/core/byte_swap.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace dudley {
namespace {

ByteOrder foreign() {
  return native_byte_order() == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle;
}

TEST(ByteSwap, SwapsEachUnit) {
  unsigned char b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  swap_units(b, 2, 4);
  EXPECT_EQ(std::memcmp(b, "\x04\x03\x02\x01\x08\x07\x06\x05", 8), 0);
  swap_units(b, 1, 8);
  EXPECT_EQ(std::memcmp(b, "\x05\x06\x07\x08\x01\x02\x03\x04", 8), 0);
  unsigned char c[4] = {1, 2, 3, 4};
  swap_units(c, 2, 2);
  EXPECT_EQ(std::memcmp(c, "\x02\x01\x04\x03", 4), 0);
}

TEST(ByteSwap, ComplexSwapsEachHalf) {
  unsigned char b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  swap_elements(b, 1, DType::complex(8, foreign()));
  EXPECT_EQ(std::memcmp(b, "\x04\x03\x02\x01\x08\x07\x06\x05", 8), 0);
}

TEST(ByteSwap, NativeAndOneByteDataIsUntouched) {
  unsigned char b[4] = {1, 2, 3, 4};
  swap_elements(b, 1, DType::int_(4, native_byte_order()));
  swap_elements(b, 4, DType::uint(1, foreign()));
  EXPECT_EQ(std::memcmp(b, "\x01\x02\x03\x04", 4), 0);
}

TEST(ByteSwap, CompoundSwapsOnlyForeignFields) {
  auto a = std::make_shared<const DType>(DType::int_(2, foreign()));
  auto b = std::make_shared<const DType>(DType::int_(2, native_byte_order()));
  DType t = DType::compound({{"a", a, 0, {}}, {"b", b, 2, {}}});
  unsigned char data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  swap_elements(data, 2, t);
  EXPECT_EQ(std::memcmp(data, "\x02\x01\x03\x04\x06\x05\x07\x08", 8), 0);
}

// Two fields over the same bytes (netCDF record variables at one address, a union): the
// bytes are swapped once, not swapped and swapped back.
TEST(ByteSwap, CompoundFieldsOverTheSameBytesSwapOnce) {
  auto a = std::make_shared<const DType>(DType::int_(2, foreign()));
  DType t = DType::compound({{"a", a, 0, {}}, {"b", a, 0, {}}, {"c", a, 2, {}}}, 4);
  unsigned char data[4] = {1, 2, 3, 4};
  swap_elements(data, 1, t);
  EXPECT_EQ(std::memcmp(data, "\x02\x01\x04\x03", 4), 0);
}

}  // namespace
}  // namespace dudley
