// model::Value <-> JSON: exact integers, the strings JSON needs for NaN and infinities, key
// order, and a storage description fed back to the codec layer as its configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dudley/codec/chain.hpp"
#include "dudley/model/value_json.hpp"

namespace dudley::model {
namespace {

TEST(ValueJson, KeepsIntegersExactAndKeysInOrder) {
  const auto text = R"({"z": 18446744073709551615, "a": -9223372036854775808, "m": [1, 2.5, null,
                        true, "NaN", {"k": {}}]})";
  const Value v = from_json(nlohmann::ordered_json::parse(text));
  const auto& map = v.as<ValueMap>();
  ASSERT_EQ(map.size(), 3u);
  EXPECT_EQ(map[0].first, "z");
  EXPECT_EQ(map[0].second.as<uint64_t>(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(map[1].second.as<int64_t>(), std::numeric_limits<int64_t>::min());
  const auto& list = map[2].second.as<ValueList>();
  EXPECT_EQ(list[0].as<int64_t>(), 1);  // small unsigned JSON numbers come back signed
  EXPECT_EQ(list[1].as<double>(), 2.5);
  EXPECT_TRUE(list[2].is_null());
  EXPECT_EQ(list[4].as<std::string>(), "NaN");  // a string stays a string
  EXPECT_EQ(to_json(v).dump(), nlohmann::ordered_json::parse(text).dump());
}

TEST(ValueJson, WritesWhatJsonCannotHoldAsStrings) {
  ValueList list{Value(std::nan("")), Value(INFINITY), Value(-INFINITY), Value(-0.0),
                 Value(ValueBytes{0, 1, 255})};
  EXPECT_EQ(to_json(Value(list)).dump(),
            R"(["NaN","Infinity","-Infinity",-0.0,{"base64":"AAH/"}])");
  Value tagged = Value(1).with_tag("tag:example/x");
  EXPECT_EQ(to_json(tagged).dump(), R"({"tag":"tag:example/x","value":1})");
}

TEST(ValueJson, RepeatedKeysKeepTheLastValue) {
  ValueMap map;
  for (int i = 0; i < 40; ++i) map.emplace_back("k" + std::to_string(i % 20), i);
  const auto json = to_json(Value(map));
  ASSERT_EQ(json.size(), 20u);
  EXPECT_EQ(json["k0"], 20);
  EXPECT_EQ(json["k19"], 39);
}

TEST(ValueJson, AStorageDescriptionFeedsTheCodecChain) {
  const Value codecs = from_json(nlohmann::ordered_json::parse(
      R"([{"name": "shuffle", "configuration": {"elementsize": 8}},
          {"name": "zstd", "configuration": {"checksum": false, "level": 3}}])"));
  // (The chain states every setting; given them all, it gives back the same description.)
  const auto chain = codec::CodecChain::from_configuration(to_plain_json(codecs));
  EXPECT_EQ(chain.configuration(), to_plain_json(codecs));
}

}  // namespace
}  // namespace dudley::model
