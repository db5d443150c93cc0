#include "dudley/layout/syntax/attribute_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "dudley/core/error.hpp"

namespace dudley::layout {
namespace {

using model::AttributeValue;
using model::Value;

ParsedAttribute parsed(std::string_view text) {
  ParsedAttribute out;
  AttributeTextError error;
  EXPECT_TRUE(parse_attribute(text, out, error))
      << text << ": " << error.message << " at " << error.offset;
  return out;
}

AttributeTextError refused(std::string_view text, size_t max_depth = 1000) {
  ParsedAttribute out;
  AttributeTextError error;
  EXPECT_FALSE(parse_attribute(text, out, error, max_depth)) << text;
  return error;
}

bool same_array(const NDArray& a, const NDArray& b) {
  return same_attribute_value(a, b);
}

// The text of a value reads back as the same value, and prints as the same text again.
void round_trips(std::string_view text) {
  const ParsedAttribute first = parsed(text);
  const std::string printed = attribute_text(first.name, first.value);
  const ParsedAttribute second = parsed(printed);
  EXPECT_EQ(second.name, first.name) << printed;
  if (const auto* v = std::get_if<Value>(&first.value)) {
    ASSERT_TRUE(std::holds_alternative<Value>(second.value)) << printed;
    EXPECT_EQ(std::get<Value>(second.value), *v) << printed;
  } else {
    ASSERT_TRUE(std::holds_alternative<NDArray>(second.value)) << printed;
    EXPECT_TRUE(same_array(std::get<NDArray>(second.value), std::get<NDArray>(first.value)))
        << text << " -> " << printed;
  }
  EXPECT_EQ(attribute_text(second.name, second.value), printed);
}

TEST(AttributeText, UntypedValuesAreJsonLike) {
  EXPECT_EQ(std::get<Value>(parsed(R"(units: "K")").value), Value("K"));
  EXPECT_EQ(std::get<Value>(parsed("n: 3").value), Value(int64_t{3}));
  EXPECT_EQ(std::get<Value>(parsed("n: 18446744073709551615").value),
            Value(uint64_t{18446744073709551615u}));
  EXPECT_EQ(std::get<Value>(parsed("x: 2.5").value), Value(2.5));
  EXPECT_TRUE(std::isnan(std::get<Value>(parsed("x: nan").value).as<double>()));
  EXPECT_EQ(std::get<Value>(parsed("ok: true").value), Value(true));
  EXPECT_EQ(std::get<Value>(parsed("none: null").value), Value());
  EXPECT_EQ(std::get<Value>(parsed(R"(raw: b"\x00a\"")").value),
            Value(model::ValueBytes{0, 'a', '"'}));
  const Value tree = std::get<Value>(parsed(R"("odd name": {a: [1, "x", []], "b c": {}})").value);
  EXPECT_EQ(parsed(R"("odd name": 1)").name, "odd name");
  ASSERT_TRUE(tree.is<model::ValueMap>());
  EXPECT_EQ(tree.as<model::ValueMap>().size(), 2u);
}

TEST(AttributeText, TypedValuesAreArraysOfTheirType) {
  const NDArray f = std::get<NDArray>(parsed("fill: <f4 1e20").value);
  EXPECT_EQ(f.dtype(), DType::float_(4, ByteOrder::kLittle));
  EXPECT_EQ(f.shape().rank(), 0u);
  EXPECT_EQ(f.to_native().get<float>({}), 1e20f);
  const NDArray m = std::get<NDArray>(parsed("m: >i2 [[1, -2], [3, 4]]").value);
  EXPECT_EQ(m.dtype(), DType::int_(2, ByteOrder::kBig));
  EXPECT_EQ(m.shape().dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(m.to_native().get<int16_t>({0, 1}), -2);
  const NDArray c = std::get<NDArray>(parsed("z: c8 [[1.5, -2], [0, 1]]").value);
  EXPECT_EQ(c.shape().dims(), (std::vector<int64_t>{2}));
  const NDArray one = std::get<NDArray>(parsed("z: c16 [1, 2]").value);
  EXPECT_EQ(one.shape().rank(), 0u);
  const NDArray b = std::get<NDArray>(parsed("flags: b1 [true, false, 1]").value);
  EXPECT_EQ(b.shape().dims(), (std::vector<int64_t>{3}));
  const NDArray bits = std::get<NDArray>(parsed("q: <f4 0x7fc00001").value);
  uint32_t raw = 0;
  std::memcpy(&raw, bits.to_native().data(), 4);
  EXPECT_EQ(raw, 0x7fc00001u);
}

TEST(AttributeText, EveryValueRoundTripsBitForBit) {
  for (const char* text : {R"(units: "K")",
                           "n: -9223372036854775808",
                           "x: 0.1",
                           "x: -0.0",
                           "x: 1e300",
                           "x: inf",
                           R"(t: "tab\t quote\" back\\ \u00e9 \ud83d\ude00")",
                           R"(b: b"\xff\x00 ok")",
                           R"(tree: {a: [1, 2.5, "x", null, true, {b: []}], "1st": {}})",
                           "f: <f4 16777217",
                           "f: <f4 3.4028235e38",
                           "f: >f8 [0.1, -0, nan, -inf]",
                           "f: <f8 0x7ff0000000000001",
                           "h: <f2 [65504, 6e-8, 0x7e01]",
                           "i: <i8 [-9223372036854775808, 9223372036854775807]",
                           "u: >u8 18446744073709551615",
                           "u: u1 [0, 255]",
                           "i: i1 -128",
                           "z: <c8 [[1.5, -2], [nan, inf]]",
                           "z: >c16 [0.1, 0.2]",
                           "e: <f8 []",
                           "b: b1 [true, false]",
                           "d: <i4 [[[1], [2]], [[3], [4]]]"}) {
    round_trips(text);
  }
}

TEST(AttributeText, MistakesNameTheirPlace) {
  EXPECT_EQ(refused(R"(units "K")").offset, 6u);
  EXPECT_NE(refused("f: <f4 [1, [2]]").message.find("rectangular"), std::string::npos);
  EXPECT_NE(refused("i: i1 128").message.find("not an integer of i1"), std::string::npos);
  EXPECT_NE(refused("u: u2 -1").message.find("not an integer of u2"), std::string::npos);
  EXPECT_NE(refused("q: <f4 0x1ffffffff").message.find("more than 4 bytes"), std::string::npos);
  EXPECT_NE(refused("s: U2 3").message.find("not attributes"), std::string::npos);
  EXPECT_NE(refused("z: c8 [1, 2, 3]").message.find("pair"), std::string::npos);
  EXPECT_NE(refused("m: {a: 1, a: 2}").message.find("twice"), std::string::npos);
  EXPECT_NE(refused(R"(t: "\ud800")").message.find("surrogate"), std::string::npos);
  EXPECT_NE(refused("t: \"\xff\"").message.find("not UTF-8"), std::string::npos);
  EXPECT_NE(refused("n: 99999999999999999999").message.find("64-bit integer"), std::string::npos);
  EXPECT_NE(refused("x: 1 2").message.find("after the value"), std::string::npos);
  EXPECT_NE(refused("<x: 1").message.find("name"), std::string::npos);
  EXPECT_NE(refused("x: <q4 1").message.find("number type"), std::string::npos);
}

TEST(AttributeText, NestingIsBounded) {
  std::string deep = "x: " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_NE(refused(deep).message.find("nest more than 1000"), std::string::npos);
  std::string typed = "x: f4 " + std::string(5000, '[') + "1" + std::string(5000, ']');
  EXPECT_NE(refused(typed).message.find("nest more than 1000"), std::string::npos);
}

// A refusal of attribute_text: a type error (what the text cannot hold), not any error.
void refused_as_type_error(const std::string& name, const AttributeValue& value) {
  try {
    (void)attribute_text(name, value);
    ADD_FAILURE() << name << ": written, not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kType) << name << ": " << e.what();
  }
}

TEST(AttributeText, WhatTheTextCannotHoldIsRefused) {
  refused_as_type_error("s", Value(std::string("\xff")));
  refused_as_type_error("e", NDArray(DType::float_(4), Shape({0, 3})));
  refused_as_type_error("p", NDArray(DType::pointer(8), Shape({})));
  refused_as_type_error("u", NDArray(DType::string(TextEncoding::kUtf32, 2), Shape({2})));
}

// YAML tags (ASDF's) are written verbatim, !<...>, on any value, nested ones too.
TEST(AttributeText, TagsAreKept) {
  Value tagged("m");
  tagged.with_tag("tag:stsci.edu:asdf/unit/unit-1.0.0");
  EXPECT_EQ(attribute_text("u", tagged), R"(u: !<tag:stsci.edu:asdf/unit/unit-1.0.0> "m")");
  EXPECT_EQ(std::get<Value>(parsed(attribute_text("u", tagged)).value).tag(), tagged.tag());
  // An empty attribute's tag holds '<' or '>' and spaces: those bytes as %XX.
  const Value empty = model::well_known::empty_value(DType::float_(4, ByteOrder::kBig));
  const std::string text = attribute_text("e", empty);
  EXPECT_EQ(text, "e: !<dudley:empty:%3Ef4> null");
  EXPECT_EQ(std::get<Value>(parsed(text).value), empty);
  round_trips(R"(m: {a: !<x> [1, !<y%20z> {b: null}]})");
  EXPECT_NE(refused("t: !<> 1").message.find("empty tag"), std::string::npos);
  EXPECT_NE(refused("t: !<a b> 1").message.find("printable ASCII"), std::string::npos);
  EXPECT_NE(refused("t: !<a> !<b> 1").message.find("one tag"), std::string::npos);
  EXPECT_NE(refused("t: !<a").message.find("closing"), std::string::npos);
}

// Text with the type it is stored as: HDF5's fixed-length and ASCII strings, netCDF's char.
TEST(AttributeText, TypedTextKeepsItsStoredType) {
  ParsedAttribute fixed = parsed(R"(units: S1[8] "K")");
  EXPECT_EQ(std::get<Value>(fixed.value), Value("K"));
  EXPECT_EQ(fixed.text_type, DType::string(TextEncoding::kAscii, 8));
  const DType stored = *fixed.text_type;
  EXPECT_EQ(attribute_text("units", fixed.value, &stored), R"(units: S1[8] "K")");
  ParsedAttribute ascii = parsed(R"(units: S1 "K")");
  EXPECT_EQ(ascii.text_type, DType::vlen(DType::text(TextEncoding::kAscii)));
  EXPECT_EQ(attribute_text("units", ascii.value, &*ascii.text_type), R"(units: S1 "K")");
  EXPECT_EQ(parsed(R"(u: U1[4] "é")").text_type, DType::string(TextEncoding::kUtf8, 4));
  // Variable-length UTF-8 is what a plain string is.
  EXPECT_FALSE(parsed(R"(u: U1 "é")").text_type);
  // Bytes that are not UTF-8 stay themselves in S1 text.
  ParsedAttribute latin = parsed(R"(u: S1[3] b"\xb5m")");
  EXPECT_EQ(std::get<Value>(latin.value).as<std::string>(), "\xb5m");
  EXPECT_EQ(attribute_text("u", latin.value, &*latin.text_type), R"(u: S1[3] b"\xb5m")");
  // Lists of them are arrays: fixed-length NUL-padded, or variable-length.
  const NDArray names = std::get<NDArray>(parsed(R"(n: S1[3] [["ab", "c"], ["", "xyz"]])").value);
  EXPECT_EQ(names.dtype(), DType::string(TextEncoding::kAscii, 3));
  EXPECT_EQ(names.shape().dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(std::memcmp(names.data(), "ab\0c\0\0\0\0\0xyz", 12), 0);
  round_trips(R"(n: S1[3] [["ab", "c"], ["", "xyz"]])");
  const NDArray vlen = std::get<NDArray>(parsed(R"(n: U1 ["a", "bé", ""])").value);
  EXPECT_EQ(vlen.dtype(), DType::vlen(DType::text(TextEncoding::kUtf8)));
  EXPECT_EQ(vlen.shape().dims(), (std::vector<int64_t>{3}));
  EXPECT_EQ(attribute_text("n", vlen), R"(n: U1 ["a", "bé", ""])");
  EXPECT_TRUE(same_attribute_value(parsed(attribute_text("n", vlen)).value, vlen));
  round_trips(R"(n: S1 [b"\xff", "x"])");
  // Mistakes.
  EXPECT_NE(refused(R"(u: S1[2] "abc")").message.find("longer than"), std::string::npos);
  EXPECT_NE(refused(R"(u: S1[0] "")").message.find("positive"), std::string::npos);
  EXPECT_NE(refused(R"(u: U1 b"\xff")").message.find("UTF-8"), std::string::npos);
  EXPECT_NE(refused(R"(u: S1 3)").message.find("text expected"), std::string::npos);
  EXPECT_NE(refused(R"(u: S1["a"])").message.find("text length"), std::string::npos);
  // A length claimed far beyond the text is refused before anything is allocated.
  EXPECT_NE(refused(R"(u: S1[1000000000] ["a", "b"])").message.find("1 MiB"), std::string::npos);
}

}  // namespace
}  // namespace dudley::layout
