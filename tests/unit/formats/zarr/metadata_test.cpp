// zarr.json as the core spec 3.1 has it: what is read, what is refused (each naming the
// file), chunk keys, and writing that reads back the same.
#include "formats/zarr/metadata.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "dudley/core/error.hpp"

namespace dudley::zarr {
namespace {

using Json = nlohmann::ordered_json;

// A zarr.json as zarr-python 3 writes it, with `change` applied to the object.
std::string array_json(const std::function<void(Json&)>& change = [](Json&) {}) {
  Json d = Json::parse(R"({
    "zarr_format": 3, "node_type": "array", "shape": [10, 7], "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 7]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": "NaN",
    "codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
               {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
    "attributes": {"units": "m", "b": [1, 2]},
    "dimension_names": ["y", null]})");
  change(d);
  return d.dump();
}

std::string error_of(const std::string& text) {
  try {
    parse_metadata(text, "store.zarr/x/zarr.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZarrMetadata, AnArrayAsZarrPythonWritesIt) {
  const NodeMetadata node = parse_metadata(array_json(), "zarr.json");
  ASSERT_TRUE(node.array);
  const ArrayMetadata& a = *node.array;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{10, 7}));
  EXPECT_EQ(a.chunk_shape, (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(a.dtype, DType::float_(4, ByteOrder::kBig));  // the bytes codec's endian
  EXPECT_EQ(a.codecs.bytes_to_bytes.size(), 1u);
  EXPECT_EQ(a.codecs.bytes_to_bytes[0].name, "zstd");
  ASSERT_TRUE(a.dimension_names);
  EXPECT_EQ((*a.dimension_names)[0], "y");
  EXPECT_FALSE((*a.dimension_names)[1]);
  EXPECT_EQ(a.attributes.begin().key(), "units");  // the file's order
  EXPECT_EQ(a.keys.key({1, 0}), "c/1/0");
}

TEST(ZarrMetadata, WrittenMetadataReadsBackTheSame) {
  const ArrayMetadata a = *parse_metadata(array_json(), "zarr.json").array;
  const std::string text = array_metadata_json(a);
  const ArrayMetadata b = *parse_metadata(text, "again.json").array;
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.chunk_shape, a.chunk_shape);
  EXPECT_EQ(b.dtype, a.dtype);
  EXPECT_EQ(b.fill, a.fill);
  EXPECT_EQ(b.codecs.to_json(), a.codecs.to_json());
  EXPECT_EQ(b.attributes, a.attributes);
  EXPECT_EQ(b.dimension_names, a.dimension_names);
  EXPECT_EQ(text.find("must_understand"), std::string::npos);
  EXPECT_NE(text.find("\"fill_value\": \"NaN\""), std::string::npos) << text;
  const NodeMetadata g = parse_metadata(group_metadata_json({Json{{"a", 1}}}), "g.json");
  EXPECT_FALSE(g.array);
  EXPECT_EQ(g.group.attributes["a"], 1);
}

TEST(ZarrMetadata, ChunkKeys) {
  ChunkKeyEncoding keys;
  EXPECT_EQ(keys.key({}), "c");
  keys.separator = '.';
  EXPECT_EQ(keys.key({1, 23, 45}), "c.1.23.45");
  keys.v2 = true;
  EXPECT_EQ(keys.key({1, 23, 45}), "1.23.45");
  EXPECT_EQ(keys.key({}), "0");
  keys.separator = '/';
  EXPECT_EQ(keys.key({1, 2}), "1/2");
  const ArrayMetadata v2 = *parse_metadata(array_json([](Json& d) {
                                             d["chunk_key_encoding"] = {{"name", "v2"}};
                                           }),
                                           "zarr.json")
                                .array;
  EXPECT_EQ(v2.keys.key({3, 0}), "3.0");
  // Short-hand names (3.1).
  const ArrayMetadata shorthand =
      *parse_metadata(
           array_json([](Json& d) {
             d["chunk_key_encoding"] = "default";
             d["codecs"] = Json::array(
                 {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, "crc32c"});
           }),
           "zarr.json")
           .array;
  EXPECT_EQ(shorthand.keys.key({3, 0}), "c/3/0");
  EXPECT_EQ(shorthand.codecs.bytes_to_bytes[0].name, "crc32c");
}

TEST(ZarrMetadata, ShardingNestsAndChecksItsShapes) {
  const ArrayMetadata a =
      *parse_metadata(array_json([](Json& d) {
                        d["chunk_grid"]["configuration"]["chunk_shape"] = {8, 14};
                        d["codecs"] =
                            Json::parse(R"([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [4, 7], "index_location": "start",
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 7],
            "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                       {"name": "bytes", "configuration": {"endian": "little"}}, "gzip"]}}]}}])");
                      }),
                      "zarr.json")
           .array;
  ASSERT_TRUE(a.codecs.sharding);
  EXPECT_FALSE(a.codecs.sharding->index_at_end);
  ASSERT_TRUE(a.codecs.sharding->codecs.sharding);
  EXPECT_EQ(a.codecs.sharding->codecs.sharding->chunk_shape, (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(a.dtype, DType::float_(4, ByteOrder::kLittle));  // the innermost bytes codec
  // The default index codecs: bytes little + crc32c.
  EXPECT_EQ(a.codecs.sharding->index_codecs.bytes_to_bytes.at(0).name, "crc32c");
  const std::string bad = error_of(array_json([](Json& d) {
    d["codecs"] = Json::parse(R"([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [3, 7], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])");
  }));
  EXPECT_NE(bad.find("does not divide"), std::string::npos) << bad;
  const std::string compressed_index = error_of(array_json([](Json& d) {
    d["codecs"] = Json::parse(R"([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 7], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, "gzip"]}}])");
  }));
  EXPECT_NE(compressed_index.find("not of fixed size"), std::string::npos) << compressed_index;
  // An index that would not fit in memory (2^40 inner chunks of one element).
  const std::string huge_index = error_of(array_json([](Json& d) {
    d["shape"] = {uint64_t{1} << 20, uint64_t{1} << 20};
    d["chunk_grid"]["configuration"]["chunk_shape"] = {uint64_t{1} << 20, uint64_t{1} << 20};
    d["codecs"] = Json::parse(R"([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [1, 1], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}])");
  }));
  EXPECT_NE(huge_index.find("an index of more than"), std::string::npos) << huge_index;
}

TEST(ZarrMetadata, ShardsAfterATransposeAreOfTheTransposedShape) {
  // Chunks of [4, 7]: after transpose [1, 0] the shard is [7, 4]; inner [7, 2] divides it.
  auto sharded_after_transpose = [](const char* inner) {
    return array_json([&](Json& d) {
      d["codecs"] =
          Json::parse(fmt::format(R"([{{"name": "transpose", "configuration": {{"order": [1, 0]}}}},
          {{"name": "sharding_indexed", "configuration": {{"chunk_shape": {},
            "codecs": [{{"name": "bytes", "configuration": {{"endian": "little"}}}}]}}}}, "gzip"])",
                                  inner));
    });
  };
  const ArrayMetadata a = *parse_metadata(sharded_after_transpose("[7, 2]"), "zarr.json").array;
  ASSERT_TRUE(a.codecs.sharding);
  EXPECT_EQ(a.codecs.array_to_array.size(), 1u);
  EXPECT_EQ(a.codecs.bytes_to_bytes.size(), 1u);
  const std::string bad = error_of(sharded_after_transpose("[2, 7]"));
  EXPECT_NE(bad.find("does not divide"), std::string::npos) << bad;
}

TEST(ZarrMetadata, WhatTheSpecForbidsIsRefusedNamingTheFile) {
  using Change = std::function<void(Json&)>;
  const std::vector<std::pair<std::string, Change>> cases = {
      {"zarr_format", [](Json& d) { d["zarr_format"] = 2; }},
      {"node_type", [](Json& d) { d["node_type"] = "table"; }},
      {"unknown field \"extra\"", [](Json& d) { d["extra"] = 1; }},
      {"fill_value is missing", [](Json& d) { d.erase("fill_value"); }},
      {"fill_value", [](Json& d) { d["fill_value"] = "1.5"; }},
      {"positive",
       [](Json& d) {
         d["chunk_grid"]["configuration"]["chunk_shape"] = {0, 7};
       }},
      {"dimensions", [](Json& d) { d["chunk_grid"]["configuration"]["chunk_shape"] = {4}; }},
      {"unknown chunk_grid", [](Json& d) { d["chunk_grid"]["name"] = "rectilinear"; }},
      {"must_understand", [](Json& d) { d["chunk_grid"]["must_understand"] = false; }},
      {"separator", [](Json& d) { d["chunk_key_encoding"]["configuration"]["separator"] = "-"; }},
      {"non-empty", [](Json& d) { d["codecs"] = Json::array(); }},
      {"comes before", [](Json& d) { d["codecs"] = Json::array({"crc32c"}); }},
      {"no array -> bytes",
       [](Json& d) {
         d["codecs"] =
             Json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}}});
       }},
      {"exactly one",
       [](Json& d) {
         d["codecs"].push_back({{"name", "bytes"}});
       }},
      {"comes after",
       [](Json& d) {
         d["codecs"].push_back({{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}});
       }},
      {"permutation",
       [](Json& d) {
         d["codecs"].insert(d["codecs"].begin(),
                            Json{{"name", "transpose"}, {"configuration", {{"order", {0, 0}}}}});
       }},
      {"needs an endian",
       [](Json& d) {
         d["codecs"][0] = {{"name", "bytes"}};
       }},
      {"unknown codec \"zfp\"", [](Json& d) { d["codecs"].push_back("zfp"); }},
      {"zstd", [](Json& d) { d["codecs"][1]["configuration"]["level"] = 99; }},
      {"2^62",
       [](Json& d) {
         d["shape"] = {uint64_t{1} << 40, uint64_t{1} << 40};
       }},
      {"may decode to",
       [](Json& d) {
         d["shape"] = {uint64_t{1} << 20, uint64_t{1} << 20};
         d["chunk_grid"]["configuration"]["chunk_shape"] = {uint64_t{1} << 20, 1024};
       }},
      {"dimension_names", [](Json& d) { d["dimension_names"] = {"y"}; }},
      {"storage transformer",
       [](Json& d) {
         d["storage_transformers"] = {{{"name", "x"}}};
       }},
      {"attributes", [](Json& d) { d["attributes"] = 3; }},
      {"unknown data_type", [](Json& d) { d["data_type"] = "float8"; }},
  };
  for (const auto& [expected, change] : cases) {
    SCOPED_TRACE(expected);
    const std::string e = error_of(array_json(change));
    EXPECT_NE(e.find("store.zarr/x/zarr.json"), std::string::npos) << e;
    EXPECT_NE(e.find(expected), std::string::npos) << e;
  }
  // Marked as ignorable: read.
  EXPECT_EQ(error_of(array_json([](Json& d) {
              d["extra"] = {{"must_understand", false}};
              d["codecs"].push_back({{"name", "zfp"}, {"must_understand", false}});
            })),
            "");
  EXPECT_NE(error_of("[1]").find("must hold an object"), std::string::npos);
}

}  // namespace
}  // namespace dudley::zarr

namespace dudley::zarr {
namespace {

std::string zarray(const std::string& filters) {
  return R"({"zarr_format": 2, "shape": [6], "chunks": [4], "dtype": "<f8",
             "compressor": {"id": "zstd", "level": 3}, "fill_value": 0.0, "order": "C",
             "filters": )" +
         filters + "}";
}

TEST(ZarrMetadataV2, TheShuffleFilterComesBeforeTheCompressorAndWritesBack) {
  const ArrayMetadata a =
      *parse_metadata_v2(zarray(R"([{"id": "shuffle", "elementsize": 8}])"), "", "s/.zarray", true)
           .array;
  ASSERT_EQ(a.codecs.bytes_to_bytes.size(), 2u);
  EXPECT_EQ(a.codecs.bytes_to_bytes[0].name, "numcodecs.shuffle");
  EXPECT_EQ(a.codecs.bytes_to_bytes[0].configuration["elementsize"], 8);
  EXPECT_EQ(a.codecs.bytes_to_bytes[1].name, "zstd");
  const Json written = Json::parse(array_metadata_json_v2(a));
  EXPECT_EQ(written["filters"], Json::parse(R"([{"id": "shuffle", "elementsize": 8}])"));
  EXPECT_EQ(written["compressor"]["id"], "zstd");
}

TEST(ZarrMetadataV2, OtherFiltersAreRefusedByName) {
  try {
    parse_metadata_v2(zarray(R"([{"id": "categorize", "labels": ["a"], "dtype": "<f8"}])"),
                      "", "s/.zarray", true);
    FAIL() << "a categorize filter was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kType);
    EXPECT_NE(std::string(e.what()).find("s/.zarray"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"categorize\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_metadata_v2(zarray(R"({"id": "shuffle"})"), "", "s/.zarray", true), Error);
  EXPECT_THROW(
      parse_metadata_v2(zarray(R"([{"id": "shuffle", "elementsize": 0}])"), "", "s/.zarray", true),
      Error);
}

}  // namespace
}  // namespace dudley::zarr
