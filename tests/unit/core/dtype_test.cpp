#include "dudley/core/dtype.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"

namespace dudley {
namespace {

TEST(DType, TypestrRoundTripsNumpySpellings) {
  for (const char* s : {"<f8", ">f4", "<f2", "|u1", "|i1", "<i2", ">u8", "<c8", ">c16", "|b1",
                        "|S10", "<U3", ">U1", "|V8"}) {
    EXPECT_EQ(DType::from_typestr(s).typestr(), s) << s;
  }
}

TEST(DType, TypestrDecodesKindSizeAndOrder) {
  DType t = DType::from_typestr(">c16");
  EXPECT_EQ(t.kind(), DTypeKind::kComplex);
  EXPECT_EQ(t.size(), 16u);
  EXPECT_EQ(t.unit_size(), 8u);
  EXPECT_EQ(t.byte_order(), ByteOrder::kBig);
  DType s = DType::from_typestr("|S10");
  EXPECT_EQ(s.kind(), DTypeKind::kText);
  EXPECT_EQ(s.text_length(), 10u);
  EXPECT_EQ(s.size(), 10u);
  DType u = DType::from_typestr("<U3");
  EXPECT_EQ(u.encoding(), TextEncoding::kUtf32);
  EXPECT_EQ(u.size(), 12u);
  EXPECT_EQ(DType::from_typestr("?").kind(), DTypeKind::kBool);
}

TEST(DType, NumpyTimesKeepUnitScaleAndKind) {
  for (const char* s : {"<M8[D]", ">m8[ps]", "<M8[10ms]", "<m8", "<M8[7W]"}) {
    EXPECT_EQ(DType::from_typestr(s).typestr(), s) << s;
  }
  const DType t = DType::from_typestr(">m8[25us]");
  EXPECT_EQ(t.kind(), DTypeKind::kTime);
  EXPECT_TRUE(t.is_duration());
  EXPECT_EQ(t.time_unit(), "us");
  EXPECT_EQ(t.time_scale(), 25u);
  EXPECT_EQ(t.size(), 8u);
  EXPECT_EQ(t.with_byte_order(ByteOrder::kLittle).typestr(), "<m8[25us]");
  EXPECT_NE(DType::time(false, "D"), DType::time(true, "D"));
  EXPECT_NE(DType::time(false, "D"), DType::time(false, "D", 2));
  EXPECT_NE(DType::time(false, "D"), DType::int_(8));
  for (const char* bad : {"<M8[]", "<M8[D", "<M8[0D]", "<M8[parsec]", "<M4[D]", "<M8[-1D]"}) {
    EXPECT_THROW(DType::from_typestr(bad), Error) << bad;
  }
}

TEST(DType, VlenBytesAreAVlenOfBytes) {
  EXPECT_EQ(DType::vlen_bytes(), DType::vlen(DType::uint(1)));
  EXPECT_TRUE(DType::vlen_bytes().is_bytes_objects());
  EXPECT_FALSE(DType::vlen(DType::uint(1)).is_bytes_objects());
}

TEST(DType, TypestrWithoutOrderIsNative) {  // numpy reads "f8" as "=f8"
  EXPECT_EQ(DType::from_typestr("f8"), DType::float_(8, native_byte_order()));
  EXPECT_EQ(DType::from_typestr("=i4"), DType::int_(4, native_byte_order()));
}

TEST(DType, OneByteTypesHaveNoOrder) {
  EXPECT_EQ(DType::from_typestr("<u1").byte_order(), ByteOrder::kNotApplicable);
  EXPECT_EQ(DType::uint(1, ByteOrder::kBig), DType::uint(1, ByteOrder::kLittle));
  EXPECT_EQ(DType::uint(1).typestr(), "|u1");
}

TEST(DType, RejectsMalformedTypestrs) {
  for (const char* s : {"", "<", "<f3", "<i16", "<x4", "<f", "<f8x", "|b2", "<c2"}) {
    EXPECT_THROW(DType::from_typestr(s), Error) << s;
  }
  try {
    DType::from_typestr("<q8");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kType);
    EXPECT_NE(e.message().find("<q8"), std::string::npos);
  }
}

TEST(DType, DudleyOnlyTypesHaveNoTypestr) {
  EXPECT_THROW(DType::complex(4).typestr(), Error);  // pair of float16
  EXPECT_THROW(DType::text(TextEncoding::kUtf16, 4).typestr(), Error);
  EXPECT_THROW(DType::pointer(8).typestr(), Error);
  EXPECT_EQ(DType::complex(4, ByteOrder::kLittle).to_string(), "<c4");
  EXPECT_EQ(DType::pointer(8, ByteOrder::kBig).to_string(), ">p8");
  EXPECT_EQ(DType::text(TextEncoding::kUtf16, 1, ByteOrder::kLittle).to_string(), "<U2");
}

TEST(DType, CompoundLayoutAndEquality) {
  auto f4 = std::make_shared<const DType>(DType::float_(4, ByteOrder::kLittle));
  auto i4 = std::make_shared<const DType>(DType::int_(4, ByteOrder::kBig));
  DType c = DType::compound({{"x", f4, 0, {}}, {"n", i4, 4, {3}}});
  EXPECT_EQ(c.kind(), DTypeKind::kCompound);
  EXPECT_EQ(c.size(), 16u);  // 4 + 3*4, no tail padding
  EXPECT_EQ(c.to_string(), "{x:<f4@0, n:>i4[3]@4}");
  DType same = DType::compound({{"x", f4, 0, {}}, {"n", i4, 4, {3}}});
  EXPECT_EQ(c, same);
  DType other = DType::compound({{"x", f4, 0, {}}, {"m", i4, 4, {3}}});
  EXPECT_FALSE(c == other);
  EXPECT_EQ(c.with_byte_order(ByteOrder::kBig).fields()[0].type->byte_order(), ByteOrder::kBig);
}

TEST(DType, NeedsSwapFollowsTheMachine) {
  ByteOrder foreign =
      native_byte_order() == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle;
  EXPECT_TRUE(DType::float_(8, foreign).needs_swap());
  EXPECT_FALSE(DType::float_(8, native_byte_order()).needs_swap());
  EXPECT_FALSE(DType::uint(1, foreign).needs_swap());
  EXPECT_FALSE(DType::float_(8, ByteOrder::kUnspecified).needs_swap());
  auto f = std::make_shared<const DType>(DType::float_(4, foreign));
  EXPECT_TRUE(DType::compound({{"a", f, 0, {}}}).needs_swap());
}

TEST(DType, CompositeKinds) {
  DType e = DType::enumeration(DType::uint(1), {{"UP", 0}, {"DOWN", 1}});
  EXPECT_EQ(e.kind(), DTypeKind::kEnum);
  EXPECT_EQ(e.size(), 1u);
  EXPECT_EQ(e.to_string(), "enum<|u1>{UP=0, DOWN=1}");
  EXPECT_THROW(DType::enumeration(DType::float_(4), {}), Error);
  DType a = DType::fixed_array(DType::float_(4, ByteOrder::kLittle), {3, 3});
  EXPECT_EQ(a.size(), 36u);
  EXPECT_EQ(a.to_string(), "<f4[3,3]");
  EXPECT_EQ(DType::vlen(DType::uint(1)).to_string(), "vlen<|u1>");
  EXPECT_EQ(DType::raw_bits(24).size(), 3u);
  EXPECT_EQ(DType::raw_bits(24).to_string(), "r24");
  EXPECT_THROW(DType::raw_bits(12), Error);
  EXPECT_EQ(DType::opaque(8, "image/png").to_string(), "V8:image/png");
  EXPECT_EQ(DType::reference(ReferenceKind::kRegion).to_string(), "regionref");
  EXPECT_THROW(DType::float_(3), Error);
  EXPECT_THROW(DType::float_(8).base(), Error);
}

}  // namespace
}  // namespace dudley
