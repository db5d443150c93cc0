#include "dudley/layout/bind/reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "dudley/core/error.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

// A 3x4 big-endian int32 array holding 0..11 at offset 4, after a little-endian count.
std::vector<unsigned char> grid_bytes() {
  std::vector<unsigned char> b(4 + 48);
  b[0] = 3;
  for (int i = 0; i < 12; ++i) b[4 + 4 * i + 3] = static_cast<unsigned char>(i);
  return b;
}

TEST(Reader, WholeArrayInNativeOrder) {
  auto bytes = grid_bytes();
  Layout l = parse_ok("N := <i4  x = >i4[N, 4]");
  Binding b(l, io::memory_source(bytes.data(), bytes.size()));
  NDArray a = read_array(b, l.find("/x"));
  EXPECT_EQ(a.dtype(), DType::int_(4, native_byte_order()));
  EXPECT_EQ(a.shape(), Shape({3, 4}));
  EXPECT_EQ(a.get<int32_t>({0, 0}), 0);
  EXPECT_EQ(a.get<int32_t>({2, 3}), 11);
  EXPECT_EQ(a.get<int32_t>({1, 2}), 6);
}

TEST(Reader, Hyperslabs) {
  auto bytes = grid_bytes();
  Layout l = parse_ok("N := <i4  x = >i4[N, 4]");
  Binding b(l, io::memory_source(bytes.data(), bytes.size()));
  NodeId x = l.find("/x");
  NDArray rows = read_array(b, x, Hyperslab::parse("[1:3, :]", {3, 4}));
  EXPECT_EQ(rows.shape(), Shape({2, 4}));
  EXPECT_EQ(rows.get<int32_t>({0, 0}), 4);
  EXPECT_EQ(rows.get<int32_t>({1, 3}), 11);
  NDArray strided = read_array(b, x, Hyperslab::parse("[::2, 1::2]", {3, 4}));
  EXPECT_EQ(strided.shape(), Shape({2, 2}));
  EXPECT_EQ(strided.get<int32_t>({0, 0}), 1);
  EXPECT_EQ(strided.get<int32_t>({0, 1}), 3);
  EXPECT_EQ(strided.get<int32_t>({1, 1}), 11);
  NDArray one = read_array(b, x, Hyperslab::parse("[-1, 2]", {3, 4}));
  EXPECT_EQ(one.shape(), Shape({}));  // numpy: integer indexes drop their dimensions
  EXPECT_EQ(one.get<int32_t>({}), 10);
  NDArray empty = read_array(b, x, Hyperslab::parse("[2:1, :]", {3, 4}));
  EXPECT_EQ(empty.element_count(), 0u);
}

// Regression: a negative step was taken for an index from the end ([::-1] of 7 gave [0, 6]).
TEST(Reader, NegativeStepsReadBackwards) {
  auto bytes = grid_bytes();
  Layout l = parse_ok("N := <i4  x = >i4[N, 4]");
  Binding b(l, io::memory_source(bytes.data(), bytes.size()));
  NodeId x = l.find("/x");
  NDArray reversed = read_array(b, x, Hyperslab::parse("[::-1, ::-1]", {3, 4}));
  ASSERT_EQ(reversed.shape(), Shape({3, 4}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(reversed.get<int32_t>({i, j}), 11 - (4 * i + j));
  }
  NDArray every_other = read_array(b, x, Hyperslab::parse("[1, ::-2]", {3, 4}));
  ASSERT_EQ(every_other.shape(), Shape({2}));
  EXPECT_EQ(every_other.get<int32_t>({0}), 7);
  EXPECT_EQ(every_other.get<int32_t>({1}), 5);
  NDArray far = read_array(b, x, Hyperslab::parse("[::-100, 2:0:-1]", {3, 4}));
  ASSERT_EQ(far.shape(), Shape({1, 2}));
  EXPECT_EQ(far.get<int32_t>({0, 0}), 10);
  EXPECT_EQ(far.get<int32_t>({0, 1}), 9);
}

TEST(Reader, NumpyIndexingForms) {
  const std::vector<int64_t> shape{3, 4, 5};
  EXPECT_EQ(Hyperslab::parse("[1]", shape).result_shape(), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(Hyperslab::parse("[..., 0]", shape).result_shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Hyperslab::parse("[0, ..., 1:3]", shape).result_shape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(Hyperslab::parse("[...]", shape).result_shape(), shape);
  EXPECT_EQ(Hyperslab::parse("[]", shape).result_shape(), shape);
  EXPECT_EQ(Hyperslab::parse("[-1, -1, -1]", shape).result_shape(), (std::vector<int64_t>{}));
  EXPECT_EQ(Hyperslab::parse("[1,]", shape).result_shape(), (std::vector<int64_t>{4, 5}));
  // Python's slice.indices: out-of-range bounds clamp, a huge step takes one element.
  Hyperslab h = Hyperslab::parse("[10:-10:-1, -100:100, ::9223372036854775807]", shape);
  EXPECT_EQ(h.count, (std::vector<int64_t>{3, 4, 1}));
  EXPECT_EQ(h.start[0], 2);
  Hyperslab m = Hyperslab::parse("[::-9223372036854775808]", {7});
  EXPECT_EQ(m.count, (std::vector<int64_t>{1}));
  EXPECT_EQ(m.start, (std::vector<int64_t>{6}));
}

TEST(Reader, BadSelections) {
  for (const char* s : {"[0:2, x]", "[3, 0]", "[0:1:0, :]", "0:1, :", "[0:1:2:3, :]", "[..., ...]",
                        "[0, 0, 0]", "[, 1]", "[-4]", "[0x1]"}) {
    EXPECT_THROW(Hyperslab::parse(s, {3, 4}), Error) << s;
  }
  auto bytes = grid_bytes();
  Layout l = parse_ok("N := <i4  x = >i4[N, 4]");
  Binding b(l, io::memory_source(bytes.data(), bytes.size()));
  Hyperslab too_far{{2, 0}, {2, 4}, {}};
  EXPECT_THROW(read_array(b, l.find("/x"), too_far), Error);
}

TEST(Reader, StructRecordsAndFloat16) {
  // T = {a: <f2, b: >u2} at 0, two records; f2 1.5 = 0x3E00, -2 = 0xC000.
  unsigned char bytes[8] = {0x00, 0x3E, 0x01, 0x02, 0x00, 0xC0, 0x03, 0x04};
  Layout l = parse_ok("T := { a = <f2  b = >u2 }  x = T[2]  h = <f2[2] @ 0");
  Binding b(l, io::memory_source(bytes, sizeof bytes));
  NDArray records = read_array(b, l.find("/x"));
  ASSERT_EQ(records.dtype().kind(), DTypeKind::kCompound);
  struct Record {
    uint16_t a, b;
  };
  Record r0 = records.get<Record>({0});
  Record r1 = records.get<Record>({1});
  EXPECT_EQ(r0.a, 0x3E00);  // the f2 bits of 1.5
  EXPECT_EQ(r0.b, 0x0102);  // big endian, swapped to native
  EXPECT_EQ(r1.a, 0xC000);  // -2.0
  EXPECT_EQ(r1.b, 0x0304);
  // h overlays the first 4 bytes: 0x3E00 (1.5) and 0x0201, a subnormal = 513 * 2^-24.
  NDArray h = read_array(b, l.find("/h")).widen_float16();
  EXPECT_EQ(h.get<float>({0}), 1.5f);
  EXPECT_EQ(h.get<float>({1}), 513.0f * std::ldexp(1.0f, -24));
}

TEST(Reader, ZeroCopyView) {
  auto bytes = grid_bytes();
  Layout l = parse_ok("N := <i4  x = >i4[N, 4]");
  auto source = io::memory_source(bytes.data(), bytes.size());
  Binding b(l, source);
  NDArray v = view_array(b, l.find("/x"), source);
  EXPECT_FALSE(v.owns_data());
  EXPECT_EQ(v.data(), bytes.data() + 4);
  EXPECT_EQ(v.dtype().byte_order(), ByteOrder::kBig);
  EXPECT_EQ(v.to_native().get<int32_t>({2, 3}), 11);
}

}  // namespace
}  // namespace dudley::layout
