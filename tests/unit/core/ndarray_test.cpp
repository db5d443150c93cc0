#include "dudley/core/ndarray.hpp"

#include <gtest/gtest.h>

#include "dudley/core/float16.hpp"

namespace dudley {
namespace {

ByteOrder foreign() {
  return native_byte_order() == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle;
}

TEST(NDArray, OwnsZeroedStorage) {
  NDArray a(DType::float_(8), Shape{2, 3});
  EXPECT_TRUE(a.owns_data());
  EXPECT_TRUE(a.is_c_contiguous());
  EXPECT_EQ(a.byte_size(), 48u);
  EXPECT_EQ(a.strides(), (std::vector<int64_t>{24, 8}));
  EXPECT_EQ(a.get<double>({1, 2}), 0.0);
  EXPECT_THROW(a.get<double>({2, 0}), Error);
  EXPECT_THROW(a.get<double>({0}), Error);
  EXPECT_THROW(a.get<float>({0, 0}), Error);
}

TEST(NDArray, RejectsOverflowingShapes) {
  EXPECT_THROW(NDArray(DType::float_(8), Shape{1LL << 62}), Error);
}

TEST(NDArray, BorrowedViewWithStridesIteratesInCOrder) {
  int32_t data[6] = {0, 1, 2, 3, 4, 5};  // a 2x3 array
  // Transposed view: shape [3, 2], strides [4, 12].
  NDArray t = NDArray::borrow(data, DType::int_(4), Shape{3, 2}, {4, 12});
  EXPECT_FALSE(t.owns_data());
  EXPECT_FALSE(t.is_c_contiguous());
  std::vector<int32_t> seen;
  t.for_each_element([&](const void* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    seen.push_back(v);
  });
  EXPECT_EQ(seen, (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  NDArray packed = t.to_native();
  EXPECT_TRUE(packed.is_c_contiguous());
  EXPECT_EQ(packed.get<int32_t>({2, 1}), 5);
}

TEST(NDArray, ConvertsForeignOrderToNative) {
  // 1.5 as big-endian float64 is 3F F8 00 .. 00.
  unsigned char be[16] = {0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0};
  unsigned char le[16];
  for (int i = 0; i < 8; ++i) {
    le[i] = be[7 - i];
    le[8 + i] = be[15 - i];
  }
  unsigned char* stored = foreign() == ByteOrder::kBig ? be : le;
  NDArray a = NDArray::borrow(stored, DType::float_(8, foreign()), Shape{2});
  NDArray n = a.to_native();
  EXPECT_EQ(n.dtype().byte_order(), native_byte_order());
  EXPECT_EQ(n.get<double>({0}), 1.5);
  EXPECT_EQ(n.get<double>({1}), -2.0);
  a.to_native_in_place();
  EXPECT_EQ(a.get<double>({0}), 1.5);
  EXPECT_EQ(a.dtype().byte_order(), native_byte_order());
}

TEST(NDArray, WidensFloat16AndHalfComplex) {
  uint16_t halves[4] = {float_to_half(1.5f), float_to_half(-0.25f), float_to_half(2.0f),
                        float_to_half(65504.0f)};
  NDArray h = NDArray::borrow(halves, DType::float_(2), Shape{4});
  NDArray f = h.widen_float16();
  EXPECT_EQ(f.dtype(), DType::float_(4));
  EXPECT_EQ(f.get<float>({1}), -0.25f);
  EXPECT_EQ(f.get<float>({3}), 65504.0f);
  NDArray c = NDArray::borrow(halves, DType::complex(4), Shape{2});
  NDArray w = c.widen_float16();
  EXPECT_EQ(w.dtype(), DType::complex(8));
  struct Pair {
    float re, im;
  };
  EXPECT_EQ(w.get<Pair>({1}).re, 2.0f);
  EXPECT_EQ(w.get<Pair>({1}).im, 65504.0f);
  EXPECT_THROW(NDArray(DType::float_(4), Shape{1}).widen_float16(), Error);
}

}  // namespace
}  // namespace dudley
