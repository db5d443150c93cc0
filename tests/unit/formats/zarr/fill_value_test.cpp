// Zarr v3 fill values: the spec's forms, exact rounding from decimal text (values checked by
// hand against IEEE 754 and numpy: np.float16(0.1).view('u2') == 0x2e66), refusals, and
// printing that reads back to the same bits for every float16 and many float32/64.
#include "formats/zarr/fill_value.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>

#include "dudley/core/error.hpp"
#include "formats/zarr/datatype.hpp"
#include "formats/zarr/json_text.hpp"

namespace dudley::zarr {
namespace {

DType type(const std::string& name) {
  return data_type_from_json(nlohmann::ordered_json(name), native_byte_order(), "zarr.json");
}

// The fill value of a zarr.json whose fill_value is the JSON text `fill`.
FillValue parse(const std::string& name, const std::string& fill) {
  const JsonDocument doc = parse_json_document("{\"fill_value\": " + fill + "}", "zarr.json");
  return fill_value_from_json(doc.value["fill_value"], type(name), doc.number_text, "/fill_value",
                              "zarr.json");
}

template <typename T>
T as(const FillValue& f, size_t offset = 0) {
  T v;
  EXPECT_GE(f.bytes.size(), offset + sizeof v);
  std::memcpy(&v, f.bytes.data() + offset, sizeof v);
  return v;
}

std::string error_of(const std::string& name, const std::string& fill) {
  try {
    parse(name, fill);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string printed(const std::string& name, const std::string& fill) {
  return fill_value_to_json(parse(name, fill), type(name)).dump();
}

TEST(ZarrFillValue, FloatsRoundFromTheirDecimalText) {
  EXPECT_EQ(as<uint16_t>(parse("float16", "0.1")), 0x2e66);
  EXPECT_EQ(as<uint16_t>(parse("float16", "65504")), 0x7bff);
  EXPECT_EQ(as<uint16_t>(parse("float16", "65519")), 0x7bff);
  EXPECT_EQ(as<uint16_t>(parse("float16", "65520")), 0x7c00);  // halfway: to even (infinity)
  // Below halfway by less than the float and double nearest it can tell.
  EXPECT_EQ(as<uint16_t>(parse("float16", "65519.99999999999999999")), 0x7bff);
  EXPECT_EQ(as<uint16_t>(parse("float16", "2049")), 0x6800);  // halfway 2048|2050: even
  EXPECT_EQ(as<uint16_t>(parse("float16", "2049.0000000001")), 0x6801);
  EXPECT_EQ(as<uint16_t>(parse("float16", "2048.9999999999")), 0x6800);
  EXPECT_EQ(as<uint16_t>(parse("float16", "-2049.0000000001")), 0xe801);
  EXPECT_EQ(as<uint16_t>(parse("float16", "1e-10")), 0x0000);
  EXPECT_EQ(as<uint16_t>(parse("float16", "1e6")), 0x7c00);
  // float32: 16777217 is halfway between 16777216 and 16777218; the text a hair above it
  // rounds up, though the double nearest it is the halfway point itself.
  EXPECT_EQ(as<uint32_t>(parse("float32", "16777217")), 0x4b800000u);
  EXPECT_EQ(as<uint32_t>(parse("float32", "16777217.000000001")), 0x4b800001u);
  EXPECT_EQ(as<uint32_t>(parse("float32", "0.1")), 0x3dcccccdu);
  EXPECT_EQ(as<uint32_t>(parse("float32", "1e39")), 0x7f800000u);
  EXPECT_EQ(as<uint64_t>(parse("float64", "0.1")), 0x3fb999999999999aULL);
  EXPECT_EQ(as<uint64_t>(parse("float64", "-0.0")), 0x8000000000000000ULL);
  EXPECT_EQ(as<uint64_t>(parse("float64", "1e-400")), 0u);
  EXPECT_EQ(as<uint64_t>(parse("float64", "9007199254740993")), 0x4340000000000000ULL);
}

TEST(ZarrFillValue, SpecialStringsAndBitPatterns) {
  EXPECT_EQ(as<uint16_t>(parse("float16", "\"NaN\"")), 0x7e00);
  EXPECT_EQ(as<uint32_t>(parse("float32", "\"NaN\"")), 0x7fc00000u);
  EXPECT_EQ(as<uint64_t>(parse("float64", "\"NaN\"")), 0x7ff8000000000000ULL);
  EXPECT_EQ(as<uint32_t>(parse("float32", "\"Infinity\"")), 0x7f800000u);
  EXPECT_EQ(as<uint32_t>(parse("float32", "\"-Infinity\"")), 0xff800000u);
  EXPECT_EQ(as<uint32_t>(parse("float32", "\"0x7fc00001\"")), 0x7fc00001u);
  EXPECT_EQ(as<uint16_t>(parse("float16", "\"0x3c00\"")), 0x3c00);
  const FillValue c = parse("complex64", "[\"-Infinity\", \"NaN\"]");
  EXPECT_EQ(as<uint32_t>(c, 0), 0xff800000u);
  EXPECT_EQ(as<uint32_t>(c, 4), 0x7fc00000u);
  const FillValue z = parse("complex128", "[1, -2.5]");
  EXPECT_EQ(std::bit_cast<double>(as<uint64_t>(z, 0)), 1.0);
  EXPECT_EQ(std::bit_cast<double>(as<uint64_t>(z, 8)), -2.5);
}

TEST(ZarrFillValue, IntegersKeepAll64Bits) {
  EXPECT_EQ(as<uint64_t>(parse("uint64", "18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(as<int64_t>(parse("int64", "-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(as<int64_t>(parse("int64", "9223372036854775807")), INT64_MAX);
  EXPECT_EQ(as<int8_t>(parse("int8", "-128")), -128);
  EXPECT_EQ(as<uint8_t>(parse("uint8", "255")), 255);
  EXPECT_EQ(printed("uint64", "18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(printed("int64", "-9223372036854775808"), "-9223372036854775808");
}

TEST(ZarrFillValue, OtherTypes) {
  EXPECT_EQ(as<uint8_t>(parse("bool", "true")), 1);
  EXPECT_EQ(as<uint8_t>(parse("bool", "false")), 0);
  const FillValue r = parse("r24", "[1, 2, 255]");
  ASSERT_EQ(r.bytes.size(), 3u);
  EXPECT_EQ(r.bytes[2], std::byte{255});
  EXPECT_EQ(printed("r24", "[1, 2, 255]"), "[1,2,255]");
  const FillValue s = parse("string", "\"h\\u00e9\"");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size()),
            "h\xc3\xa9");
  EXPECT_EQ(parse("bytes", "\"AQID\""), parse("bytes", "[1, 2, 3]"));
  EXPECT_EQ(parse("bytes", "\"AQI=\"").bytes.size(), 2u);
  EXPECT_EQ(parse("bytes", "\"\"").bytes.size(), 0u);
}

TEST(ZarrFillValue, WhatATypeDoesNotPermitIsRefused) {
  const std::pair<const char*, const char*> bad[] = {
      {"int8", "128"},
      {"uint8", "-1"},
      {"int32", "1.0"},
      {"int32", "1e3"},
      {"uint64", "18446744073709551616"},
      {"int16", "\"1\""},
      {"bool", "1"},
      {"bool", "null"},
      {"float32", "\"nan\""},
      {"float32", "\"0x7fc0000\""},
      {"float32", "\"0x7fc000000\""},
      {"float64", "\"0xZZ\""},
      {"float64", "null"},
      {"float64", "[1]"},
      {"complex64", "[1]"},
      {"complex64", "1"},
      {"complex64", "[1, \"x\"]"},
      {"r16", "[1]"},
      {"r16", "[1, 256]"},
      {"r16", "[1, -1]"},
      {"r8", "\"AQ==\""},
      {"string", "1"},
      {"bytes", "\"AQI\""},
      {"bytes", "[300]"},
      {"bytes", "\"A=QI\""},
  };
  for (const auto& [name, fill] : bad) {
    SCOPED_TRACE(std::string(name) + " " + fill);
    const std::string e = error_of(name, fill);
    EXPECT_NE(e.find("zarr.json"), std::string::npos) << e;
    EXPECT_NE(e.find("fill_value"), std::string::npos) << e;
  }
}

TEST(ZarrFillValue, PrintedAsTheSpecWritesThem) {
  EXPECT_EQ(printed("float64", "-0.0"), "-0.0");
  EXPECT_EQ(printed("float32", "0.1"), "0.1");
  EXPECT_EQ(printed("float16", "0.1"), "0.1");
  EXPECT_EQ(printed("float64", "\"NaN\""), "\"NaN\"");
  EXPECT_EQ(printed("float32", "\"0x7fc00001\""), "\"0x7fc00001\"");
  EXPECT_EQ(printed("float32", "\"0xffc00000\""), "\"0xffc00000\"");  // a negative NaN
  EXPECT_EQ(printed("float16", "\"-Infinity\""), "\"-Infinity\"");
  EXPECT_EQ(printed("complex128", "[\"-Infinity\", \"NaN\"]"), "[\"-Infinity\",\"NaN\"]");
  EXPECT_EQ(printed("float64", "1e300"), "1e+300");
  EXPECT_EQ(printed("bool", "true"), "true");
}

// Printing then parsing gives the same bits: every float16, and random float32/float64
// bit patterns (NaNs with payloads, subnormals and all).
TEST(ZarrFillValue, PrintingAndParsingAreExactInverses) {
  auto round_trip = [](const std::string& name, const FillValue& fill) {
    const std::string text = fill_value_to_json(fill, type(name)).dump();
    const FillValue back = parse(name, text);
    return back == fill;
  };
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    FillValue f{std::vector<std::byte>(2)};
    std::memcpy(f.bytes.data(), &bits, 2);
    ASSERT_TRUE(round_trip("float16", f)) << std::hex << h;
  }
  std::mt19937_64 random(11);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = random();
    FillValue f32{std::vector<std::byte>(4)}, f64{std::vector<std::byte>(8)};
    const auto low = static_cast<uint32_t>(bits);
    std::memcpy(f32.bytes.data(), &low, 4);
    std::memcpy(f64.bytes.data(), &bits, 8);
    ASSERT_TRUE(round_trip("float32", f32)) << std::hex << low;
    ASSERT_TRUE(round_trip("float64", f64)) << std::hex << bits;
  }
}

}  // namespace
}  // namespace dudley::zarr
