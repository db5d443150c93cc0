// Schemas through Avro C into the node graph (the ndarray record recognised, recursive
// types, errors naming the place) and datums of nested schemas into the model and back.
#include <gtest/gtest.h>

#include "dudley/core/error.hpp"
#include "formats/avro/datum.hpp"
#include "formats/avro/ndarray_record.hpp"
#include "formats/avro/schema.hpp"

namespace dudley::avro {
namespace {

// A yaq-like message: a record holding an ndarray, a union with it, a map and an array of
// them, and plain fields.
const char* const kMessage = R"({"type": "record", "name": "Message", "namespace": "yaq",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "label", "type": "string"},
    {"name": "image", "type": {"type": "record", "name": "ndarray", "logicalType": "ndarray",
      "fields": [{"name": "shape", "type": {"type": "array", "items": "int"}},
                 {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
                 {"name": "version", "type": "int"}]}},
    {"name": "maybe", "type": ["null", "string", "yaq.ndarray"]},
    {"name": "channels", "type": {"type": "map", "values": "yaq.ndarray"}},
    {"name": "frames", "type": {"type": "array", "items": "yaq.ndarray"}},
    {"name": "mode", "type": {"type": "enum", "name": "Mode", "symbols": ["fast", "slow"]}},
    {"name": "tags", "type": {"type": "array", "items": "string"}}]})";

TEST(AvroSchema, NodesOfANestedSchema) {
  const Schema s = parse_schema(kMessage, "m.avsc");
  const SchemaNode& top = s.top();
  EXPECT_EQ(top.kind, SchemaKind::kRecord);
  EXPECT_EQ(top.name, "yaq.Message");
  ASSERT_EQ(top.fields.size(), 8u);
  EXPECT_TRUE(top.holds_ndarray);
  EXPECT_TRUE(s.at(top.fields[2].second).ndarray);
  // The named type referred to again is the same node.
  EXPECT_EQ(s.at(top.fields[3].second).branches[2], top.fields[2].second);
  EXPECT_FALSE(s.at(top.fields[7].second).holds_ndarray);
  EXPECT_TRUE(ndarray_schema().top().ndarray);
}

TEST(AvroSchema, RecursiveTypesAndWhatIsRefused) {
  const Schema list = parse_schema(
      R"({"type": "record", "name": "Node", "fields": [{"name": "v", "type": "int"},
          {"name": "next", "type": ["null", "Node"]}]})",
      "l.avsc");
  EXPECT_EQ(list.top().min_bytes, 2u);  // an int and a union index
  try {
    parse_schema("{\"type\": \"record\",\n  \"name\": }", "bad.avsc");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.avsc:2:"), std::string::npos) << e.what();
  }
  try {
    parse_schema(R"({"type": "recrod", "name": "x"})", "bad.avsc");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.avsc: error: not an Avro schema"), std::string::npos)
        << e.what();
  }
  // JSON whose number no double holds (the fuzzer's find: nlohmann's out_of_range escaped).
  try {
    parse_schema(R"({"type": "record", "name": "R", "size": 222e2222, "fields": []})", "big.avsc");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kData);
    EXPECT_NE(
        std::string(e.what()).find("big.avsc: error: schema: a number too large for a double"),
        std::string::npos)
        << e.what();
  }
  // A record that holds itself with nothing between: no datum of it ends.
  EXPECT_THROW(
      parse_schema(R"({"type": "record", "name": "R", "fields": [{"name": "r", "type": "R"}]})",
                   "self.avsc"),
      Error);
}

TEST(AvroDatum, ANestedMessageIsAGroupOfArraysWithItsOtherFieldsAsAttributes) {
  const Schema s = parse_schema(kMessage, "m.avsc");
  // Built as a model tree, encoded, decoded: the same tree.
  model::Node message;
  message.attributes.set("id", model::Value(int64_t{-42}));
  message.attributes.set("label", model::Value("scan 7"));
  message.attributes.set("mode", model::Value("slow"));
  message.attributes.set("tags",
                         model::Value(model::ValueList{model::Value("a"), model::Value("b")}));
  auto array_node = [](const std::string& name, std::vector<int64_t> shape, double first) {
    auto n = std::make_unique<model::Node>();
    n->kind = model::NodeKind::kArray;
    n->name = name;
    NDArray a(DType::float_(8), Shape(shape));
    auto* p = static_cast<double*>(a.mutable_data());
    for (uint64_t i = 0; i < a.element_count(); ++i) p[i] = first + static_cast<double>(i);
    n->dtype = a.dtype();
    n->shape = shape;
    struct Source final : model::ArraySource {
      explicit Source(NDArray x) : a(std::move(x)) {}
      NDArray read() override { return a.to_native(); }
      NDArray read(const Hyperslab& slab) override { return a.select(slab).to_native(); }
      NDArray a;
    };
    n->data = std::make_shared<Source>(std::move(a));
    return n;
  };
  message.children.push_back(array_node("image", {2, 2}, 1));
  message.children.push_back(array_node("maybe", {3}, 10));
  auto channels = std::make_unique<model::Node>();
  channels->name = "channels";
  channels->children.push_back(array_node("x", {1}, 5));
  message.children.push_back(std::move(channels));
  auto frames = std::make_unique<model::Node>();
  frames->name = "frames";
  frames->kind = model::NodeKind::kList;
  frames->children.push_back(array_node("", {2}, 7));
  frames->children.push_back(array_node("", {0}, 0));
  message.children.push_back(std::move(frames));
  codec::Bytes datum;
  BinaryWriter w(datum);
  encode_node(message, s, s.root, w);
  BinaryReader in(datum, "d.bin");
  const auto back = decode_node(in, s, s.root);
  EXPECT_TRUE(in.at_end());
  ASSERT_EQ(back->kind, model::NodeKind::kGroup);
  EXPECT_EQ(std::get<model::Value>(*back->attributes.find("id")), model::Value(int64_t{-42}));
  EXPECT_EQ(std::get<model::Value>(*back->attributes.find("label")), model::Value("scan 7"));
  EXPECT_EQ(std::get<model::Value>(*back->attributes.find("mode")), model::Value("slow"));
  const model::Node* image = back->member("image");
  ASSERT_TRUE(image && image->kind == model::NodeKind::kArray);
  EXPECT_EQ(image->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(image->data->read().get<double>({1, 1}), 4.0);
  const model::Node* maybe = back->member("maybe");  // the union's ndarray branch
  ASSERT_TRUE(maybe && maybe->kind == model::NodeKind::kArray);
  EXPECT_EQ(maybe->data->read().get<double>({2}), 12.0);
  const model::Node* x = back->member("channels") ? back->member("channels")->member("x") : nullptr;
  ASSERT_TRUE(x);
  EXPECT_EQ(x->data->read().get<double>({0}), 5.0);
  const model::Node* f = back->member("frames");
  ASSERT_TRUE(f && f->kind == model::NodeKind::kList);
  ASSERT_EQ(f->children.size(), 2u);
  EXPECT_EQ(f->children[1]->shape, (std::vector<int64_t>{0}));
  // The union's string branch: an attribute.
  message.children.erase(message.children.begin() + 1);
  message.attributes.set("maybe", model::Value("none"));
  codec::Bytes second;
  BinaryWriter w2(second);
  encode_node(message, s, s.root, w2);
  BinaryReader in2(second, "d.bin");
  const auto back2 = decode_node(in2, s, s.root);
  EXPECT_EQ(std::get<model::Value>(*back2->attributes.find("maybe")), model::Value("none"));
  // Skipping a datum lands where decoding ends.
  BinaryReader in3(second, "d.bin");
  skip_datum(in3, s, s.root);
  EXPECT_TRUE(in3.at_end());
}

TEST(AvroDatum, HostileDatumsAreRefusedWithoutGrowing) {
  const Schema list = parse_schema(
      R"({"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]})",
      "l.avsc");
  // 100 levels of "next": deeper than kMaxDatumDepth.
  codec::Bytes deep;
  BinaryWriter w(deep);
  for (int i = 0; i < 100; ++i) w.write_long(1);
  w.write_long(0);
  BinaryReader in(deep, "deep.bin");
  EXPECT_THROW(decode_node(in, list, list.root), Error);
  // An array of 2^40 nulls: refused, not looped over.
  const Schema nulls = parse_schema(R"({"type": "array", "items": "null"})", "n.avsc");
  codec::Bytes many;
  BinaryWriter(many).write_long(int64_t{1} << 40);
  BinaryReader in2(many, "n.bin");
  try {
    decode_node(in2, nulls, nulls.root);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kLimit);
  }
  // A union index out of range names its byte.
  const Schema u = parse_schema(R"(["null", "int"])", "u.avsc");
  codec::Bytes bad;
  BinaryWriter(bad).write_long(5);
  BinaryReader in3(bad, "u.bin", 10);
  try {
    decode_node(in3, u, u.root);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("u.bin:@10: error: union index 5 of a union of 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dudley::avro
