// Attributes and storage in the JSON of ls/dump (docs/cli.md), and their text forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "cli/model_json.hpp"

namespace dudley::cli {
namespace {

using model::Value;
using model::ValueList;
using model::ValueMap;

TEST(ModelJson, ValuesAreExactAndNonFiniteAreStrings) {
  EXPECT_EQ(value_json(Value()).dump(), "null");
  EXPECT_EQ(value_json(Value(uint64_t{18446744073709551615u})).dump(), "18446744073709551615");
  EXPECT_EQ(value_json(Value(int64_t{-9223372036854775807 - 1})).dump(), "-9223372036854775808");
  EXPECT_EQ(value_json(Value(std::nan(""))).dump(), "\"NaN\"");
  EXPECT_EQ(value_json(Value(-std::numeric_limits<double>::infinity())).dump(), "\"-Infinity\"");
  EXPECT_EQ(value_json(Value(0.1)).dump(), "0.1");
  // "Man" is TWFu, "Ma" TWE=, "M" TQ== (RFC 4648's examples).
  EXPECT_EQ(value_json(Value(model::ValueBytes{'M', 'a', 'n'})).dump(), R"({"base64":"TWFu"})");
  EXPECT_EQ(value_json(Value(model::ValueBytes{'M', 'a'})).dump(), R"({"base64":"TWE="})");
  EXPECT_EQ(value_json(Value(model::ValueBytes{'M'})).dump(), R"({"base64":"TQ=="})");
  Value tagged = Value(ValueList{Value(1.0), Value(2.0)});
  tagged.with_tag("tag:stsci.edu:asdf/core/complex-1.0.0");
  EXPECT_EQ(value_json(tagged).dump(),
            R"({"tag":"tag:stsci.edu:asdf/core/complex-1.0.0","value":[1.0,2.0]})");
  const Value map(ValueMap{{"z", Value(true)}, {"a", Value("x")}});  // order kept
  EXPECT_EQ(value_json(map).dump(), R"({"z":true,"a":"x"})");
}

// Large objects are filled by appending (ordered_json's operator[] searches linearly); the
// order stays the source's, and a repeated name still gives one member with the last value.
TEST(ModelJson, LargeMapsKeepOrderAndTheLastOfARepeatedName) {
  ValueMap map;
  for (int i = 0; i < 100; ++i) map.emplace_back("k" + std::to_string(i), Value(int64_t{i}));
  map.emplace_back("k50", Value(std::string("last")));
  const auto j = value_json(Value(map));
  ASSERT_EQ(j.size(), 100u);
  EXPECT_EQ(j.begin().key(), "k0");
  EXPECT_EQ(std::prev(j.end()).key(), "k99");
  EXPECT_EQ(j["k50"], "last");
  model::Attributes attributes;
  for (int i = 0; i < 100; ++i) attributes.set("a" + std::to_string(i), Value(int64_t{i}));
  const auto a = attributes_json(attributes);
  ASSERT_EQ(a.size(), 100u);
  EXPECT_EQ(std::prev(a.end()).key(), "a99");
  EXPECT_EQ(a["a7"], 7);
}

TEST(ModelJson, AttributesHoldTreesAndTypedArrays) {
  model::Attributes attrs;
  attrs.set("units", Value("K"));
  NDArray scale(DType::from_typestr("<f4"), Shape({2}));
  const float values[2] = {1.5f, -2.0f};
  std::memcpy(scale.mutable_data(), values, sizeof values);
  attrs.set("scale", scale);
  attrs.set("units", Value("kelvin"));  // replaced in place
  EXPECT_EQ(attributes_json(attrs).dump(),
            R"({"units":"kelvin","scale":{"dtype":"<f4","shape":[2],"data":[1.5,-2.0]}})");
  // Typed values print as h5ls prints them (they printed as "<f4[2]", hiding a fill value).
  EXPECT_EQ(attributes_text(attrs), R"(units="kelvin", scale=[1.5,-2.0])");
  attrs.set("a", Value(1));
  attrs.set("b", Value(2));
  EXPECT_EQ(attributes_text(attrs, 2), R"(units="kelvin", scale=[1.5,-2.0], ...)");
}

TEST(ModelJson, LargeAndEmptyAttributes) {
  model::Attributes attrs;
  NDArray big(DType::from_typestr("<i2"), Shape({1000}));
  std::memset(big.mutable_data(), 0, big.byte_size());
  attrs.set("big", big);
  attrs.set("none", model::well_known::empty_value(DType::from_typestr("<f4")));
  EXPECT_EQ(attributes_text(attrs), "big=<i2[1000], none=Empty(<f4)");
  EXPECT_EQ(attributes_json(attrs)["none"].dump(),
            R"({"dtype":"<f4","shape":null,"empty":true,"data":null})");
  EXPECT_EQ(model::well_known::empty_type(Value(nullptr)), std::nullopt);
}

TEST(ModelJson, StorageContiguousChunkedMasked) {
  model::Storage plain;
  EXPECT_TRUE(storage_json(plain).is_null());
  plain.kind = model::Storage::Kind::kContiguous;
  plain.offset = 456;
  plain.size = 96;
  plain.order = ByteOrder::kBig;
  EXPECT_EQ(storage_json(plain).dump(),
            R"({"layout":"contiguous","offset":456,"size":96,"byteorder":"big"})");
  EXPECT_EQ(storage_text(plain), "");
  model::Storage chunked;
  chunked.kind = model::Storage::Kind::kChunked;
  auto c = std::make_shared<model::Chunking>();
  c->chunk_shape = {64, 64};
  c->codecs =
      Value(ValueList{Value(ValueMap{{"name", Value("bytes")}}),
                      Value(ValueMap{{"name", Value("zstd")},
                                     {"configuration", Value(ValueMap{{"level", Value(3)}})}})});
  c->fill_value = Value(std::nan(""));
  chunked.chunking = c;
  auto m = std::make_shared<model::Masking>();
  m->value = Value(-999);
  chunked.mask = m;
  EXPECT_EQ(
      storage_json(chunked).dump(),
      R"({"layout":"chunked","chunk_shape":[64,64],"codecs":[{"name":"bytes"},)"
      R"({"name":"zstd","configuration":{"level":3}}],"fill_value":"NaN","mask":{"value":-999}})");
  EXPECT_EQ(storage_text(chunked), "chunked [64, 64] bytes+zstd, masked where == -999");
}

TEST(ModelJson, ShardsNestTheirInnerChunks) {
  // A shard of [64, 64] holding [16, 16] chunks, each a shard of [4, 4] chunks.
  auto innermost = std::make_shared<model::Chunking>();
  innermost->chunk_shape = {4, 4};
  innermost->codecs = Value(ValueList{Value(ValueMap{{"name", Value("zstd")}})});
  auto middle = std::make_shared<model::Chunking>();
  middle->chunk_shape = {16, 16};
  middle->inner = innermost;
  middle->index_codecs = Value(ValueList{Value(ValueMap{{"name", Value("crc32c")}})});
  auto outer = std::make_shared<model::Chunking>();
  outer->chunk_shape = {64, 64};
  outer->codecs = Value(ValueList{});
  outer->inner = middle;
  outer->index_location = model::Chunking::IndexLocation::kStart;
  model::Storage s;
  s.kind = model::Storage::Kind::kChunked;
  s.chunking = outer;
  EXPECT_EQ(storage_json(s).dump(),
            R"({"layout":"chunked","chunk_shape":[64,64],"codecs":[],"shard":{)"
            R"("chunk_shape":[16,16],"codecs":null,"index_codecs":null,"index_location":"start",)"
            R"("shard":{"chunk_shape":[4,4],"codecs":[{"name":"zstd"}],)"
            R"("index_codecs":[{"name":"crc32c"}],"index_location":"end"}}})");
  EXPECT_EQ(outer->read_unit(), (std::vector<int64_t>{4, 4}));
}

}  // namespace
}  // namespace dudley::cli
