// Binding layouts to binary data built byte by byte here (independently of any writer).
#include "dudley/layout/bind/binder.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

// Little helper to lay out bytes at chosen offsets.
class Bytes {
 public:
  explicit Bytes(size_t size) : data_(size, 0) {}
  Bytes& le(size_t at, uint64_t value, unsigned width) {
    for (unsigned i = 0; i < width; ++i)
      data_.at(at + i) = static_cast<unsigned char>(value >> (8 * i));
    return *this;
  }
  Bytes& be(size_t at, uint64_t value, unsigned width) {
    for (unsigned i = 0; i < width; ++i)
      data_.at(at + i) = static_cast<unsigned char>(value >> (8 * (width - 1 - i)));
    return *this;
  }
  Bytes& raw(size_t at, std::initializer_list<unsigned char> bytes) {
    for (unsigned char b : bytes) data_.at(at++) = b;
    return *this;
  }
  std::shared_ptr<io::ByteSource> source() const {
    return io::memory_source(data_.data(), data_.size(), "test.bin");
  }

 private:
  std::vector<unsigned char> data_;
};

struct Bound {
  Layout layout;
  Bytes bytes;
  std::unique_ptr<Binding> binding;
  Bound(std::string_view text, Bytes b, BindOptions options = {})
      : layout(parse_ok(text)), bytes(std::move(b)) {
    binding = std::make_unique<Binding>(layout, bytes.source(), std::move(options));
  }
  BoundArray at(std::string_view path) { return binding->array(layout.find(path)); }
  int64_t param(std::string_view name) {
    for (ParamId p = 0; p < layout.params.size(); ++p) {
      if (layout.name(layout.params[p].name) == name) return binding->param_value(p);
    }
    ADD_FAILURE() << "no parameter " << name;
    return 0;
  }
};

TEST(Binder, CursorFollowsDeclarations) {  // [C7]
  Bound b("N := <i4  x = <f8[N]  y = <i2", Bytes(40).le(0, 3, 4));
  EXPECT_EQ(b.param("N"), 3);
  BoundArray x = b.at("/x");
  EXPECT_EQ(x.address, 4u);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(x.dtype, DType::float_(8, ByteOrder::kLittle));
  EXPECT_EQ(x.byte_size, 24u);
  EXPECT_EQ(b.at("/y").address, 28u);
}

TEST(Binder, ExplicitAddressesAndCursorDirective) {  // [C7, C8]
  Bound b("a = <f8 @ 16  b = <u1  !@ 100  c = <i4  g / d = <u2 .. L = [ = <u1 ]", Bytes(120));
  EXPECT_EQ(b.at("/a").address, 16u);
  EXPECT_EQ(b.at("/b").address, 24u);
  EXPECT_EQ(b.at("/c").address, 100u);
  EXPECT_EQ(b.at("/g/d").address, 104u);  // groups do not reset the cursor
  EXPECT_EQ(b.at("/L/0").address, 106u);
}

TEST(Binder, SignatureSetsDefaultOrder) {  // [C20]
  // The spec's literal bytes for big endian, then a big-endian i4 = 7.
  Bound big("!DUDLEY := S1[8]  N := i4  x = f4[N]",
            Bytes(40).raw(0, {0x89, 0x44, 0x75, 0x44, 0x0d, 0x0a, 0x1a, 0x0a}).be(8, 7, 4));
  EXPECT_EQ(big.binding->default_order(), ByteOrder::kBig);
  EXPECT_EQ(big.param("N"), 7);
  EXPECT_EQ(big.at("/x").dtype, DType::float_(4, ByteOrder::kBig));
  EXPECT_EQ(big.at("/x").address, 12u);
  // The ASCII "dud" form means little endian.
  Bound little("!DUDLEY := S1[8]  N := i4",
               Bytes(12).raw(0, {0x89, 0x64, 0x75, 0x64, 0x0d, 0x0a, 0x1a, 0x0a}).le(8, 9, 4));
  EXPECT_EQ(little.param("N"), 9);
  Bound bad("!DUDLEY := S1[8]  N := i4", Bytes(12).raw(0, {'H', 'D', 'F'}));
  EXPECT_THROW(bad.param("N"), Error);
  EXPECT_FALSE(decode_signature(reinterpret_cast<const unsigned char*>("\x89HDF\r\n\x1a\n")));
}

TEST(Binder, UnknownByteOrderNamesTheVariable) {  // [C3]
  Bound b("g / x = f8", Bytes(8));
  try {
    b.at("/g/x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kType);
    EXPECT_NE(e.message().find("/g/x"), std::string::npos) << e.message();
  }
  BindOptions o;
  o.default_order = ByteOrder::kBig;
  Bound ok("x = f8  s = S1[3]  u = u1", Bytes(12), o);
  EXPECT_EQ(ok.at("/x").dtype.byte_order(), ByteOrder::kBig);
  Bound one_byte("s = S1[3]  u = u1  b = b1", Bytes(5));  // one-byte types need no order
  EXPECT_EQ(one_byte.at("/b").address, 4u);
}

TEST(Binder, ZeroAndNegativeDimensionsAndSuffixes) {  // [C14]
  Bound b("Z := 0  N := 3  M := -1  x = <f8[Z] @ 100  y = <u1[N+, M, 2]  z = <u1[Z+]  w = <u1",
          Bytes(16));
  EXPECT_EQ(b.at("/x").byte_size, 0u);
  EXPECT_EQ(b.at("/y").address, 0u);  // the empty x did not move the cursor
  EXPECT_EQ(b.at("/y").shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(b.at("/z").shape, (std::vector<int64_t>{0}));
  EXPECT_EQ(b.at("/w").address, 8u);
}

TEST(Binder, StructsTypedefsAndFreeNames) {  // [C16-C18]
  Bound b(
      "T := { a = <f4  b = <i2[2] @ 6 }  vec := { = <f8[3] }  U := { v = <u1[K] }  K := 2 "
      "x = T[3]  v = vec[2]  u = U[4]",
      Bytes(200));
  BoundArray x = b.at("/x");
  ASSERT_EQ(x.dtype.kind(), DTypeKind::kCompound);
  EXPECT_EQ(x.dtype.size(), 10u);  // packed, no tail padding
  EXPECT_EQ(x.dtype.fields()[1].offset, 6u);
  EXPECT_EQ(x.dtype.fields()[1].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(x.shape, (std::vector<int64_t>{3}));
  BoundArray v = b.at("/v");
  EXPECT_EQ(v.dtype, DType::float_(8, ByteOrder::kLittle));
  EXPECT_EQ(v.shape, (std::vector<int64_t>{2, 3}));  // outer first
  EXPECT_EQ(v.address, 30u);
  BoundArray u = b.at("/u");
  EXPECT_EQ(u.dtype.size(), 2u);  // K = 2 where U is used
  EXPECT_EQ(u.byte_size, 8u);
}

TEST(Binder, ParameterBlocksAndPointeesTakeSpace) {  // [C19, C21]
  Bound b("NB := 2  PB := { n := <i4  m := <i4 }[NB]  x = <u1  p = <p8  5 = <f8[2]  y = <u1",
          Bytes(64));
  EXPECT_EQ(b.at("/x").address, 16u);
  EXPECT_EQ(b.at("/p").dtype.kind(), DTypeKind::kPointer);
  EXPECT_EQ(b.at("/y").address, 41u);  // x(1) + p(8) + pointee(16) after 16
}

TEST(Binder, LookupReadsOnlyWhatTheItemNeeds) {
  // A's bytes lie beyond the data; x does not depend on A, so binding x must not read it.
  Bound b("A := <i4 @ 1000  B := <i4 @ 0  x = <f8[B] @ 8", Bytes(24).le(0, 2, 4));
  EXPECT_EQ(b.at("/x").shape, (std::vector<int64_t>{2}));
  EXPECT_THROW(b.param("A"), Error);
}

TEST(Binder, ExternalParameters) {  // [C23]
  BindOptions present;
  present.params["N"] = 5;
  Bound p("N := <i4  x = <u1[N]", Bytes(16).le(0, 2, 4), present);
  EXPECT_EQ(p.param("N"), 5);         // the given value wins
  EXPECT_EQ(p.at("/x").address, 4u);  // the declaration still occupies its bytes
  BindOptions absent;
  absent.params["/g/N"] = 3;
  absent.params_absent = true;
  Bound a("g / N := <i4  x = <u1[N] ..", Bytes(3), absent);
  EXPECT_EQ(a.at("/g/x").address, 0u);  // no bytes for the absent parameter
  EXPECT_EQ(a.at("/g/x").shape, (std::vector<int64_t>{3}));
  BindOptions missing;
  missing.params_absent = true;
  Bound m("N := <i4  x = <u1[N]", Bytes(3), missing);
  EXPECT_THROW(m.at("/x"), Error);
  BindOptions unknown;
  unknown.params["Q"] = 1;
  Layout l = parse_ok("N := <i4");
  EXPECT_THROW(Binding(l, Bytes(4).source(), unknown), Error);
}

TEST(Binder, OutOfRangeItemsAreErrorsNamingThem) {
  Bound b("N := <i4  x = <f8[N]", Bytes(12).le(0, 3, 4));  // x needs 24 bytes, has 8
  try {
    b.at("/x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kData);
    EXPECT_EQ(e.location().path, "test.bin");
    EXPECT_EQ(e.location().byte_offset, 4u);
    EXPECT_NE(e.message().find("/x"), std::string::npos);
  }
  Bound p("N := <i4 @ 10", Bytes(12));
  try {
    b.param("N");
    p.param("N");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("parameter /N"), std::string::npos) << e.message();
  }
}

TEST(Binder, HostileParameterValues) {
  // u8 of 2^63 or more is an error [C5]; a huge count overflows or runs past the end.
  Bound big("N := <u8  x = <u1[N]", Bytes(16).le(0, uint64_t{1} << 63, 8));
  EXPECT_THROW(big.at("/x"), Error);
  Bound huge("N := <i8  M := <i8  x = <f8[N, M]",
             Bytes(16).le(0, uint64_t{1} << 40, 8).le(8, uint64_t{1} << 40, 8));
  EXPECT_THROW(huge.at("/x"), Error);  // byte size beyond 2^64
  Bound neg("N := <i4  x = <u1[N]  y = <u1", Bytes(8).le(0, 0xFFFFFFFF, 4));
  EXPECT_TRUE(neg.at("/x").shape.empty());  // -1: the dimension disappears (a scalar)
  EXPECT_EQ(neg.at("/y").address, 5u);
}

// Found by fuzz/dudley_bind: a signature after data that needs its byte order.
TEST(Binder, SignatureAfterTheDataThatNeedsIt) {
  Bytes bytes(24);
  bytes.le(0, 7, 8).raw(8, {0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a}).le(16, 9, 4);
  Bound b("x = i8  !DUDLEY := S1[8]  y = i4", bytes);
  EXPECT_EQ(b.at("/x").dtype, DType::int_(8, ByteOrder::kLittle));
  EXPECT_EQ(b.at("/y").address, 16u);
  Bytes p(16);
  p.le(0, 3, 4).raw(4, {0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a});
  Bound param("N := i4  !DUDLEY := S1[8]  x = u1[N]", p);
  EXPECT_EQ(param.param("N"), 3);
  EXPECT_EQ(param.at("/x").address, 12u);
}

TEST(Binder, TrueCycleIsAnErrorNotACrash) {
  // N needs the order, the signature's place needs x's size, x's size needs N.
  Bound b("N := i4  x = u1[N]  !DUDLEY := S1[8]", Bytes(32));
  try {
    b.at("/x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("circular"), std::string::npos) << e.message();
  }
}

TEST(Binder, CountedArraysMoveTheCursorPastEachInstance) {  // [C18]
  Bytes bytes(32);
  bytes.le(0, 5, 4).raw(4, {'h', 'e', 'l', 'l', 'o'});                           // a
  bytes.le(10, 2, 4).raw(14, {'h', 'i'}).le(16, 3, 4).raw(20, {'a', 'b', 'c'});  // s[2]
  Bound b("string := { count := <u4  = S1[count] }  a = string  b = <u1  s = string[2]  c = <u1",
          bytes);
  EXPECT_EQ(b.at("/b").address, 9u);
  EXPECT_EQ(b.at("/c").address, 23u);
  EXPECT_THROW(b.at("/a"), Error);  // presenting instances of varying size: not yet an array
}

TEST(Binder, NestedCountedArrays) {
  Bytes bytes(16);
  bytes.le(0, 3, 4).raw(4, {'a', 'b', 'c'});  // t.name
  Bound b(
      "string := { count := <u4  = S1[count] }  T := { name = string  x = <u1 }  t = T  y = <u1",
      bytes);
  EXPECT_EQ(b.at("/y").address, 8u);  // 4 + 3 + 1
}

TEST(Binder, HeterogeneousArrayInstancesFollowEachOther) {  // [C21]
  Bytes bytes(32);
  bytes.le(0, 1, 4).le(4, 2, 4);  // block instances: n = 1, n = 2
  Bound b("NB := 2  PB := { n := <i4 }[NB] @ 0  h = PB{ v = <f4[n] } @ 8  y = <u1", bytes);
  EXPECT_EQ(b.at("/y").address, 20u);  // 8 + 4*1 + 4*2
}

TEST(Binder, HugeInstanceCountEndsInAnErrorNotAHang) {
  Bytes bytes(64);
  bytes.le(0, uint64_t{1} << 40, 8);
  Bound b("N := <i8  Z := { n := <i4  = <u1[n] }  z = Z[N]  y = <u1", bytes);
  EXPECT_THROW(b.at("/y"), Error);
}

}  // namespace
}  // namespace dudley::layout
