// Zarr metadata JSON: errors at path:line:col, duplicate keys and deep nesting refused,
// the decimal text of numbers kept by JSON pointer; and data type names both ways.
#include <gtest/gtest.h>

#include <string>

#include "dudley/core/error.hpp"
#include "formats/zarr/datatype.hpp"
#include "formats/zarr/json_text.hpp"

namespace dudley::zarr {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_json_document(text, "a/zarr.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZarrJson, SyntaxErrorsNameTheLineAndColumn) {
  EXPECT_NE(error_of("{\n  \"a\": 1,\n  \"b\": tru\n}").find("a/zarr.json:3:"), std::string::npos)
      << error_of("{\n  \"a\": 1,\n  \"b\": tru\n}");
  EXPECT_NE(error_of("{\"a\": 1").find("a/zarr.json:1:"), std::string::npos);
  EXPECT_NE(error_of("").find("a/zarr.json"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": NaN}").find("invalid JSON"), std::string::npos);
  // Beyond a double's range: refused by the JSON parser (python's json would make it
  // infinity; "Infinity" says that).
  EXPECT_NE(error_of("{\"a\": -1e400}").find("a/zarr.json:1:"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": -1e400}").find("number overflow"), std::string::npos);
}

TEST(ZarrJson, DuplicateKeysAndDeepNestingAreRefused) {
  const std::string twice = error_of("{\"attributes\": {\"x\": 1, \"x\": 2}}");
  EXPECT_NE(twice.find("\"x\" is given twice"), std::string::npos) << twice;
  EXPECT_NE(twice.find("/attributes"), std::string::npos) << twice;
  const std::string deep(100000, '[');
  EXPECT_NE(error_of(deep).find("nesting deeper than"), std::string::npos);
  std::string ok;
  for (size_t i = 0; i < kMaxJsonDepth; ++i) ok += "[";
  for (size_t i = 0; i < kMaxJsonDepth; ++i) ok += "]";
  EXPECT_EQ(error_of(ok), "");
}

TEST(ZarrJson, NumbersKeepTheirText) {
  const JsonDocument doc = parse_json_document(
      R"({"fill_value": [1.50, -2e-3], "a/b": {"x": 0.1000000000000000000001}, "n": 3})",
      "zarr.json");
  EXPECT_EQ(doc.number_text.at("/fill_value/0"), "1.50");
  EXPECT_EQ(doc.number_text.at("/fill_value/1"), "-2e-3");
  EXPECT_EQ(doc.number_text.at("/a~1b/x"), "0.1000000000000000000001");
  EXPECT_EQ(doc.number_text.count("/n"), 0u);  // an integer is its own text
  // Keys keep the document's order.
  EXPECT_EQ(doc.value.begin().key(), "fill_value");
}

TEST(ZarrDataType, EveryCoreNameBothWays) {
  for (const char* name :
       {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
        "float32", "float64", "complex64", "complex128", "r8", "r24", "r256", "string", "bytes"}) {
    SCOPED_TRACE(name);
    const DType t = data_type_from_json(name, ByteOrder::kBig, "zarr.json");
    EXPECT_EQ(data_type_name(t), name);
  }
  EXPECT_EQ(data_type_from_json("float32", ByteOrder::kBig, "z"),
            DType::float_(4, ByteOrder::kBig));
  EXPECT_EQ(data_type_from_json("r24", ByteOrder::kBig, "z").size(), 3u);
  EXPECT_EQ(data_type_from_json(nlohmann::ordered_json{{"name", "int16"}}, ByteOrder::kLittle, "z"),
            DType::int_(2, ByteOrder::kLittle));
}

TEST(ZarrDataType, UnknownAndMalformedNamesAreRefused) {
  for (const char* bad :
       {"\"float128\"", "\"r0\"", "\"r7\"", "\"r08\"", "\"r-8\"", "\"rx\"", "\"r\"",
        "\"r99999999999\"", "\"Int8\"", "3", "null",
        "{\"name\": \"int8\", \"configuration\": "
        "{\"x\": 1}}",
        "{\"name\": \"int8\", \"must_understand\": false}", "{\"nam\": \"int8\"}"}) {
    SCOPED_TRACE(bad);
    try {
      data_type_from_json(nlohmann::ordered_json::parse(bad), ByteOrder::kLittle, "a/zarr.json");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kType);
      EXPECT_NE(std::string(e.what()).find("a/zarr.json"), std::string::npos);
    }
  }
  EXPECT_THROW(data_type_name(DType::string(TextEncoding::kAscii, 4)), Error);
}

}  // namespace
}  // namespace dudley::zarr
