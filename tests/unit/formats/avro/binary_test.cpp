// Avro binary primitives: zig-zag varints as the spec's table gives them, and every length
// checked against what is left before it is used.
#include "formats/avro/binary.hpp"

#include <gtest/gtest.h>

#include "dudley/core/error.hpp"

namespace dudley::avro {
namespace {

codec::Bytes bytes(std::initializer_list<int> v) {
  codec::Bytes out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::string error_of(const codec::Bytes& data, void (*read)(BinaryReader&)) {
  BinaryReader in(data, "x.avro", 100);
  try {
    read(in);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AvroBinary, LongsAsTheSpecTabulatesThem) {
  // The spec's table: 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01.
  const std::pair<int64_t, codec::Bytes> table[] = {
      {0, bytes({0x00})}, {-1, bytes({0x01})},  {1, bytes({0x02})},        {-2, bytes({0x03})},
      {2, bytes({0x04})}, {-64, bytes({0x7f})}, {64, bytes({0x80, 0x01})},
  };
  for (const auto& [value, encoded] : table) {
    codec::Bytes out;
    BinaryWriter(out).write_long(value);
    EXPECT_EQ(out, encoded) << value;
    BinaryReader in(encoded, "t");
    EXPECT_EQ(in.read_long(), value);
    EXPECT_TRUE(in.at_end());
    EXPECT_EQ(long_size(value), encoded.size());
  }
  for (int64_t v : {INT64_MIN, INT64_MAX, int64_t{-1} << 40, int64_t{123456789}}) {
    codec::Bytes out;
    BinaryWriter(out).write_long(v);
    BinaryReader in(out, "t");
    EXPECT_EQ(in.read_long(), v);
    EXPECT_EQ(long_size(v), out.size());
  }
}

TEST(AvroBinary, BrokenInputNamesTheByte) {
  // A varint cut off; one of 11 bytes; a tenth byte beyond 64 bits.
  EXPECT_NE(error_of(bytes({0x80}), [](BinaryReader& in) { in.read_long(); })
                .find("x.avro:@101: error: a varint runs past the end"),
            std::string::npos)
      << error_of(bytes({0x80}), [](BinaryReader& in) { in.read_long(); });
  EXPECT_NE(error_of(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}),
                     [](BinaryReader& in) { in.read_long(); })
                .find("longer than 64 bits"),
            std::string::npos);
  // An int beyond 32 bits.
  codec::Bytes big;
  BinaryWriter(big).write_long(int64_t{1} << 33);
  EXPECT_NE(error_of(big, [](BinaryReader& in) { in.read_int(); }).find("does not fit 32 bits"),
            std::string::npos);
  // bytes claiming more than is there, and a negative length: nothing allocated.
  EXPECT_NE(error_of(bytes({0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01}),
                     [](BinaryReader& in) { in.read_bytes(); })
                .find("runs past the end"),
            std::string::npos);
  EXPECT_NE(
      error_of(bytes({0x01}), [](BinaryReader& in) { in.read_bytes(); }).find("a length of -1"),
      std::string::npos);
  // A block of 2^40 items of at least one byte in 2 bytes.
  codec::Bytes block;
  BinaryWriter(block).write_long(int64_t{1} << 40);
  EXPECT_NE(error_of(block, [](BinaryReader& in) { in.read_block_count(1); }).find("items in"),
            std::string::npos);
  // A boolean byte of 2.
  EXPECT_NE(error_of(bytes({0x02}), [](BinaryReader& in) { in.read_boolean(); }).find("boolean"),
            std::string::npos);
}

TEST(AvroBinary, NegativeBlockCountsCarryTheirSize) {
  // Java and C++ writers: -2 items, then the block's size (2 bytes), then the items.
  codec::Bytes data;
  BinaryWriter w(data);
  w.write_long(-2);
  w.write_long(2);
  w.write_long(7);
  w.write_long(-3);
  w.write_long(0);
  BinaryReader in(data, "t");
  ASSERT_EQ(in.read_block_count(1), 2u);
  EXPECT_EQ(in.read_long(), 7);
  EXPECT_EQ(in.read_long(), -3);
  EXPECT_EQ(in.read_block_count(1), 0u);
  EXPECT_TRUE(in.at_end());
  // A block size past the end is refused.
  codec::Bytes bad;
  BinaryWriter(bad).write_long(-1);
  BinaryWriter(bad).write_long(1000);
  BinaryReader b(bad, "t");
  EXPECT_THROW(b.read_block_count(1), Error);
}

TEST(AvroBinary, FloatsAreLittleEndian) {
  codec::Bytes out;
  BinaryWriter w(out);
  w.write_float(1.0f);
  w.write_double(-2.5);
  EXPECT_EQ(out, bytes({0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0x04, 0xc0}));
  BinaryReader in(out, "t");
  EXPECT_EQ(in.read_float(), 1.0f);
  EXPECT_EQ(in.read_double(), -2.5);
}

}  // namespace
}  // namespace dudley::avro
