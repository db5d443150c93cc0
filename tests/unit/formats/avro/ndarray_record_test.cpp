// The ndarray record: every typestr round-trips, any source layout is written in C order,
// big-endian data is read to native order, and broken records fail naming their byte.
#include "formats/avro/ndarray_record.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "dudley/core/error.hpp"

namespace dudley::avro {
namespace {

codec::Bytes from_hex(const std::string& hex) {
  codec::Bytes out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(AvroNdarray, ADatumAsPython3AvroWritesIt) {
  // python3-avro 1.11 (DatumWriter of the YEP-113 schema) for {"shape": [2, 3], "typestr":
  // ">i4", "data": np.arange(6, dtype=">i4").tobytes(), "version": 3}.
  const codec::Bytes datum =
      from_hex("04040600063e69343000000000000000010000000200000003000000040000000506");
  BinaryReader in(datum, "datum.bin");
  const DecodedNdarray d = decode_ndarray(in);
  EXPECT_TRUE(in.at_end());
  EXPECT_EQ(d.array.shape().dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(d.stored, DType::int_(4, ByteOrder::kBig));
  EXPECT_EQ(d.array.dtype(), DType::int_(4, native_byte_order()));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(d.array.get<int32_t>({i / 3, i % 3}), i);
  // Written back little endian: the same record but for typestr and data bytes.
  codec::Bytes out;
  BinaryWriter w(out);
  encode_ndarray(d.array, w);
  const codec::Bytes expected =
      from_hex("04040600063c69343000000000010000000200000003000000040000000500000006");
  EXPECT_EQ(out, expected);
}

TEST(AvroNdarray, EveryTypestrRoundTrips) {
  for (const char* t : {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4",
                        "<f8", "<c8", "<c16"}) {
    const DType dtype = dtype_of_typestr(t);
    EXPECT_EQ(typestr_of(dtype), t);
    NDArray a(dtype, Shape({3, 2}));
    auto* p = static_cast<uint8_t*>(a.mutable_data());
    for (uint64_t i = 0; i < a.byte_size(); ++i)
      p[i] = static_cast<uint8_t>(dtype.kind() == DTypeKind::kBool ? i % 2 : i * 7 + 1);
    codec::Bytes out;
    BinaryWriter w(out);
    encode_ndarray(a, w);
    BinaryReader in(out, "t");
    const auto owner = std::make_shared<codec::Bytes>(out);
    BinaryReader view_in(*owner, "t");
    const DecodedNdarray copy = decode_ndarray(in);
    const DecodedNdarray view = decode_ndarray(view_in, owner);
    for (const auto* d : {&copy, &view}) {
      ASSERT_EQ(d->array.byte_size(), a.byte_size()) << t;
      EXPECT_EQ(std::memcmp(d->array.data(), a.data(), a.byte_size()), 0) << t;
      EXPECT_EQ(d->array.shape().dims(), (std::vector<int64_t>{3, 2}));
    }
  }
  // Other spellings read: '>', '=', '|' for one byte, '<' for one byte.
  EXPECT_EQ(dtype_of_typestr(">f8"), DType::float_(8, ByteOrder::kBig));
  EXPECT_EQ(dtype_of_typestr("=i2"), DType::int_(2, native_byte_order()));
  EXPECT_EQ(dtype_of_typestr("<u1").size(), 1u);
  for (const char* bad : {"<f16", "<M8", "|O", "|S5", "<U4", "|V8", "|f8", "<b2", "<i3", "f8",
                          "<c4", "<f1", "<i16", "<i08", "<?", "<?1", "<", ""}) {
    EXPECT_THROW(dtype_of_typestr(bad), Error) << bad;
  }
}

TEST(AvroNdarray, AViewBorrowsTheDataWhereverItLies) {
  NDArray a(DType::float_(8, ByteOrder::kLittle), Shape({5}));
  for (int i = 0; i < 5; ++i) static_cast<double*>(a.mutable_data())[i] = i * 1.5;
  auto owner = std::make_shared<codec::Bytes>();
  BinaryWriter w(*owner);
  encode_ndarray(a, w);
  BinaryReader in(*owner, "t");
  const DecodedNdarray d = decode_ndarray(in, owner);
  const auto* begin = owner->data();
  const auto* at = static_cast<const std::byte*>(d.array.data());
  EXPECT_TRUE(at > begin && at < begin + owner->size());  // no copy (at byte 7 here)
  EXPECT_EQ(d.array.get<double>({4}), 6.0);               // read with memcpy
  EXPECT_EQ(d.array.to_native().get<double>({3}), 4.5);
  // A big-endian source is written little endian: it reads back as a view too.
  NDArray big(DType::float_(8, ByteOrder::kBig), Shape({1}));
  auto owner2 = std::make_shared<codec::Bytes>();
  BinaryWriter w2(*owner2);
  encode_ndarray(big, w2);  // written little endian: a view again
  BinaryReader in2(*owner2, "t");
  const DecodedNdarray d2 = decode_ndarray(in2, owner2);
  EXPECT_EQ(d2.array.get<double>({0}), 0.0);
}

TEST(AvroNdarray, StridedAndFortranOrderSourcesAreWrittenInCOrder) {
  NDArray a(DType::int_(2, ByteOrder::kBig), Shape({2, 3}));
  auto* p = static_cast<uint8_t*>(a.mutable_data());
  for (int i = 0; i < 6; ++i) {
    p[2 * i] = 0;
    p[2 * i + 1] = static_cast<uint8_t>(i);  // big endian i
  }
  // Its transpose as a strided view (3 x 2): element [r][c] = a[c][r] = 3c + r.
  const NDArray t = NDArray::borrow(a.mutable_data(), a.dtype(), Shape({3, 2}), {2, 6});
  codec::Bytes out;
  BinaryWriter w(out);
  encode_ndarray(t, w);
  BinaryReader in(out, "t");
  const DecodedNdarray d = decode_ndarray(in);
  EXPECT_EQ(d.stored, DType::int_(2, ByteOrder::kLittle));
  const int16_t want[] = {0, 3, 1, 4, 2, 5};
  EXPECT_EQ(std::memcmp(d.array.data(), want, sizeof want), 0);
}

TEST(AvroNdarray, ZeroDimensionalAndEmptyArrays) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {0}, {4, 0, 2}}) {
    NDArray a(DType::float_(8), Shape(shape));
    codec::Bytes out;
    BinaryWriter w(out);
    encode_ndarray(a, w);
    BinaryReader in(out, "t");
    const DecodedNdarray d = decode_ndarray(in);
    EXPECT_EQ(d.array.shape().dims(), shape);
    EXPECT_EQ(d.array.byte_size(), shape.empty() ? 8u : 0u);
  }
}

// A record built field by field (shape entries as given, so that they may be wrong).
codec::Bytes record(const std::vector<int64_t>& shape, const std::string& typestr,
                    const codec::Bytes& data) {
  codec::Bytes out;
  BinaryWriter w(out);
  if (!shape.empty()) {
    w.write_long(static_cast<int64_t>(shape.size()));
    for (int64_t e : shape) w.write_long(e);
  }
  w.write_long(0);
  w.write_string(typestr);
  w.write_bytes(data);
  w.write_long(3);
  return out;
}

TEST(AvroNdarray, BooleansReadAnyNonzeroByteAsTrue) {
  const codec::Bytes datum = record({3}, "|b1", {std::byte{0}, std::byte{2}, std::byte{7}});
  BinaryReader in(datum, "t");
  const DecodedNdarray d = decode_ndarray(in);
  const auto* b = static_cast<const uint8_t*>(d.array.data());
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 1);
  EXPECT_EQ(b[2], 1);
}

std::string error_of(const codec::Bytes& datum) {
  BinaryReader in(datum, "r.bin", 0);
  try {
    decode_ndarray(in);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AvroNdarray, BrokenRecordsFailNamingTheirByte) {
  const std::string negative = error_of(record({-1}, "<f8", {}));
  EXPECT_NE(negative.find("r.bin:@1: error: a negative shape entry -1"), std::string::npos)
      << negative;
  const std::string short_data = error_of(record({2}, "<f8", codec::Bytes(8)));
  EXPECT_NE(short_data.find("r.bin:@7: error: data of 8 bytes for shape [2] of <f8 (16 bytes)"),
            std::string::npos)
      << short_data;
  const std::string unknown = error_of(record({}, "<f16", {}));
  EXPECT_NE(unknown.find("r.bin:@1: error: typestr \"<f16\""), std::string::npos) << unknown;
  const int64_t big = INT32_MAX;
  const std::string overflow = error_of(record({big, big, big, big}, "<c16", {}));
  EXPECT_NE(overflow.find("overflows 64 bits"), std::string::npos) << overflow;
  const std::string too_big = error_of(record({int64_t{1} << 31}, "<f8", {}));
  EXPECT_NE(too_big.find("does not fit 32 bits"), std::string::npos) << too_big;
  const std::string ranks = error_of(record(std::vector<int64_t>(65, 1), "<f8", codec::Bytes(8)));
  EXPECT_NE(ranks.find("more than 64 dimensions"), std::string::npos) << ranks;
}

}  // namespace
}  // namespace dudley::avro
