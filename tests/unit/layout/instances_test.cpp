// Items whose instances differ in size, read as data through the model tree: counted arrays,
// structs with parameters stored per instance, heterogeneous arrays of parameter blocks
// [C16, C18, C21]. Every file is built byte by byte here.
#include <gtest/gtest.h>

#include <cstring>

#include "dudley/core/text.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using dudley::testing::parse_ok;

struct Opened {
  std::vector<unsigned char> bytes;
  model::Tree tree;
  Opened(std::string_view text, std::vector<unsigned char> b) : bytes(std::move(b)) {
    auto layout = std::make_shared<const Layout>(parse_ok(text));
    tree = dudley_tree(layout, io::memory_source(bytes.data(), bytes.size(), "test.bin"));
  }
  const model::Node& at(std::string_view path) const {
    const model::Node* n = tree.find(path);
    if (!n) throw std::runtime_error("no node " + std::string(path));
    return *n;
  }
  std::string text(std::string_view path) const {
    NDArray a = at(path).data->read();
    return std::string(static_cast<const char*>(a.data()), a.byte_size());
  }
};

void le(std::vector<unsigned char>& b, size_t at, uint64_t v, unsigned width) {
  if (b.size() < at + width) b.resize(at + width);
  for (unsigned i = 0; i < width; ++i) b[at + i] = static_cast<unsigned char>(v >> (8 * i));
}
void put(std::vector<unsigned char>& b, size_t at, std::string_view s) {
  if (b.size() < at + s.size()) b.resize(at + s.size());
  std::memcpy(b.data() + at, s.data(), s.size());
}

TEST(Instances, CountedArrayReadsAsItsMember) {  // the spec's `text = string`
  std::vector<unsigned char> b;
  le(b, 0, 5, 4);
  put(b, 4, "hello");
  le(b, 9, 0x0102, 2);
  Opened o("string := { count := <u4  = S1[count] }  text = string  after = <i2", b);
  const model::Node& text = o.at("/text");
  ASSERT_EQ(text.kind, model::NodeKind::kArray) << text.error.text();
  EXPECT_EQ(text.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(text.storage.offset, 4u);
  EXPECT_EQ(o.text("/text"), "hello");
  EXPECT_EQ(o.at("/after").storage.offset, 9u);  // the cursor moved past the instance
  EXPECT_EQ(o.at("/after").data->read().get<int16_t>({}), 0x0102);
}

TEST(Instances, ArrayOfCountedArraysIsAList) {
  std::vector<unsigned char> b;
  le(b, 0, 2, 1);
  put(b, 1, "ab");
  le(b, 3, 0, 1);
  le(b, 4, 3, 1);
  put(b, 5, "xyz");
  le(b, 8, 7, 1);
  Opened o("string := { n := u1  = S1[n] }  words = string[3]  tail = u1", b);
  const model::Node& words = o.at("/words");
  ASSERT_EQ(words.kind, model::NodeKind::kList) << words.error.text();
  ASSERT_EQ(model::child_count(words), 3u);
  EXPECT_EQ(o.text("/words/0"), "ab");
  EXPECT_EQ(o.at("/words/1").shape, (std::vector<int64_t>{0}));
  EXPECT_EQ(o.text("/words/2"), "xyz");
  EXPECT_EQ(o.at("/words/2").storage.offset, 5u);
  EXPECT_EQ(o.at("/tail").storage.offset, 8u);
}

TEST(Instances, StructWithParametersPerInstanceIsAListOfGroups) {
  std::vector<unsigned char> b;
  // instance 0: n=1, a=[1.5f], b=-1 ; instance 1: n=2, a=[2.5f, 3.5f], b=9
  le(b, 0, 1, 2);
  float f[3] = {1.5f, 2.5f, 3.5f};
  uint32_t bits;
  std::memcpy(&bits, &f[0], 4);
  le(b, 2, bits, 4);
  le(b, 6, 0xff, 1);
  le(b, 7, 2, 2);
  std::memcpy(&bits, &f[1], 4);
  le(b, 9, bits, 4);
  std::memcpy(&bits, &f[2], 4);
  le(b, 13, bits, 4);
  le(b, 17, 9, 1);
  Opened o("rec := { n := <u2  a = <f4[n]  b = i1 }  r = rec[2]", b);
  const model::Node& r = o.at("/r");
  ASSERT_EQ(r.kind, model::NodeKind::kList) << r.error.text();
  const model::Node& second = o.at("/r/1");
  ASSERT_EQ(second.kind, model::NodeKind::kGroup);
  ASSERT_EQ(second.params.size(), 1u);
  EXPECT_EQ(second.params[0].name, "n");
  EXPECT_EQ(second.params[0].value, 2);
  EXPECT_EQ(second.params[0].address, 7u);
  EXPECT_EQ(o.at("/r/1/a").storage.offset, 9u);
  NDArray a = o.at("/r/1/a").data->read();
  EXPECT_EQ(a.get<float>({1}), 3.5f);
  EXPECT_EQ(o.at("/r/0/b").data->read().get<int8_t>({}), -1);
  EXPECT_EQ(o.at("/r/1/b").storage.offset, 17u);
}

TEST(Instances, HeterogeneousArrayOfAParameterBlock) {  // [C21]
  std::vector<unsigned char> b;
  le(b, 0, 1, 4);  // block instance 0: N = 1
  le(b, 4, 2, 4);  // block instance 1: N = 2
  for (int i = 0; i < 3; ++i) {
    double v = 10.0 + i;
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    le(b, 8 + 8 * static_cast<size_t>(i), bits, 8);
  }
  Opened o("PB := { N := <i4 }[2]  var = PB{ x = <f8[N] }", b);
  const model::Node& var = o.at("/var");
  ASSERT_EQ(var.kind, model::NodeKind::kList) << var.error.text();
  ASSERT_EQ(model::child_count(var), 2u);
  EXPECT_EQ(o.at("/var/0").params.at(0).value, 1);
  EXPECT_EQ(o.at("/var/1").params.at(0).value, 2);
  EXPECT_EQ(o.at("/var/1").params.at(0).address, 4u);  // where block instance 1 holds N
  EXPECT_EQ(o.at("/var/0/x").shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(o.at("/var/1/x").storage.offset, 16u);
  NDArray x = o.at("/var/1/x").data->read();
  EXPECT_EQ(x.get<double>({0}), 11.0);
  EXPECT_EQ(x.get<double>({1}), 12.0);
}

TEST(Instances, CountedArraysNestedInAStruct) {
  std::vector<unsigned char> b;
  le(b, 0, 2, 1);  // k = 2 names
  le(b, 1, 1, 1);
  put(b, 2, "A");
  le(b, 3, 2, 1);
  put(b, 4, "BC");
  Opened o("string := { n := u1  = S1[n] }  rec := { k := u1  names = string[k] }  r = rec", b);
  const model::Node& r = o.at("/r");
  ASSERT_EQ(r.kind, model::NodeKind::kGroup) << r.error.text();
  EXPECT_EQ(o.at("/r/names").kind, model::NodeKind::kList);
  EXPECT_EQ(o.text("/r/names/0"), "A");
  EXPECT_EQ(o.text("/r/names/1"), "BC");
}

TEST(Instances, TruncatedInstancesAreAnErrorNamingTheItem) {
  std::vector<unsigned char> b;
  le(b, 0, 200, 1);  // says 200 characters follow; 3 do
  put(b, 1, "abc");
  Opened o("string := { n := u1  = S1[n] }  text = string", b);
  const model::Node& text = o.at("/text");
  EXPECT_NE(text.error.message.find("/text"), std::string::npos) << text.error.text();
  EXPECT_NE(text.error.message.find("beyond the end"), std::string::npos) << text.error.text();
  EXPECT_EQ(text.error.category, ErrorCategory::kData);  // kept as the error said it
  EXPECT_TRUE(text.error.location.byte_offset.has_value());
  // A huge count of instances stops at the end of the data, quickly.
  std::vector<unsigned char> c(64, 1);
  Opened many("N := <u8  string := { n := u1  = S1[n] }  words = string[N]", [&] {
    le(c, 0, uint64_t{1} << 40, 8);
    return c;
  }());
  // The list claims 2^40 items and costs nothing for it: a walk makes them one at a time
  // and stops at the first one that runs past the data (8 + 56 bytes hold 28 two-byte ones).
  const model::Node& words = many.at("/words");
  EXPECT_EQ(model::child_count(words), uint64_t{1} << 40);
  uint64_t visited = 0;
  std::string last_error;
  model::for_each_child(words, [&](uint64_t, const model::Node& item) {
    ++visited;
    last_error = item.error.text();
    return true;
  });
  EXPECT_EQ(visited, 29u);
  EXPECT_NE(last_error.find("/words"), std::string::npos) << last_error;
  EXPECT_NE(last_error.find("beyond the end"), std::string::npos) << last_error;
}

TEST(Instances, OneAtATimeMatchesAllAtOnceInAnyOrder) {
  // Five counted strings of lengths 0..4, then a fixed-size tail.
  std::vector<unsigned char> b;
  size_t at = 0;
  for (unsigned n = 0; n < 5; ++n) {
    le(b, at, n, 1);
    put(b, at + 1, std::string(n, static_cast<char>('a' + n)));
    at += 1 + n;
  }
  const Layout layout = parse_ok("string := { n := u1  = S1[n] }  w = string[5]");
  const NodeId w = layout.find("/w");
  Binding all(layout, io::memory_source(b.data(), b.size(), "t.bin"));
  std::vector<int64_t> shape;
  const std::vector<BoundInstance> expected = all.instances(w, shape);
  ASSERT_EQ(expected.size(), 5u);
  for (const std::vector<uint64_t>& order :
       {std::vector<uint64_t>{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 4, 1, 3}}) {
    Binding one(layout, io::memory_source(b.data(), b.size(), "t.bin"));
    for (uint64_t i : order) {
      const BoundInstance got = one.instance(w, i);
      EXPECT_EQ(got.address, expected[i].address) << i;
      EXPECT_EQ(got.size, expected[i].size) << i;
      ASSERT_EQ(got.members.size(), 1u);
      EXPECT_EQ(got.members[0].array.address, expected[i].members[0].array.address) << i;
      EXPECT_EQ(got.members[0].array.shape, expected[i].members[0].array.shape) << i;
    }
    EXPECT_THROW(one.instance(w, 5), Error);
  }
}

TEST(Instances, IdenticalInstancesAreCountedNotWalked) {
  // 2^62 instances of a parameter block whose only parameter is fixed: all alike, so the
  // last one's place is arithmetic (a walk would never end).
  const Layout layout = parse_ok("PB := { n := 2 }[4611686018427387904]  v = PB{ x = u1[n] }");
  std::vector<unsigned char> none;
  Binding b(layout, io::memory_source(none.data(), 0, "t.bin"));
  const NodeId v = layout.find("/v");
  EXPECT_EQ(b.instance_shape_of(v), (std::vector<int64_t>{int64_t{1} << 62}));
  // Each instance takes 2 bytes: the layout claims 2^63 bytes, the empty file holds none.
  try {
    b.instance(v, (uint64_t{1} << 62) - 1);
    ADD_FAILURE() << "an instance past the end of the data was laid out";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("beyond the end of the data"), std::string::npos)
        << e.what();
  }
  // Nested copies are bounded too: instances() of them would need 2^62 records.
  std::vector<int64_t> shape;
  EXPECT_THROW(b.instances(v, shape), Error);
}

}  // namespace
}  // namespace dudley::layout
