// The writer on the constructs beyond plain arrays: counted arrays, structs with parameters
// per instance, heterogeneous arrays of a parameter block, pointees, regions of an item, and
// items appended to lists. Byte layouts are checked by hand against the spec; values are
// read back through the reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "dudley/layout/write/pair_record.hpp"
#include "dudley/layout/write/writer.hpp"
#include "dudley/open.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

namespace fs = std::filesystem;
using dudley::testing::array_of;
using dudley::testing::bytes_of;
using dudley::testing::data_of;
using dudley::testing::parse_ok;
using dudley::testing::without_pair_line;

using WriterConstructs = dudley::testing::TempDirTest;

NDArray text(const std::string& s) {
  NDArray a(DType::text(TextEncoding::kAscii, s.size()), Shape({}));
  std::memcpy(a.mutable_data(), s.data(), s.size());
  return a;
}

const model::Node& at(const model::Tree& tree, const std::string& path) {
  const model::Node* n = tree.find(path);
  if (!n) throw std::runtime_error("no " + path);
  return *n;
}

std::string read_text(const model::Node& n) {
  if (!n.data) throw std::runtime_error(n.error.text());
  NDArray a = n.data->read().to_native();
  return {static_cast<const char*>(a.data()), a.byte_size()};
}

TEST_F(WriterConstructs, CountedArrayOfStringsHasTheSpecsBytes) {
  Layout layout = parse_ok(
      "!DUDLEY := S1[8]  K := u1  string := { n := u4  = S1[n] }  "
      "names = string[K]");
  const std::string path = file("names.bin");
  WriteOptions options;
  options.order = ByteOrder::kLittle;
  Writer w(layout, path, options);
  w.write_instances("/names", {text("ab"), text("xyz")});
  EXPECT_EQ(w.commit(), 8u + 1 + 6 + 7 + kPairTrailerBytes);
  const std::vector<unsigned char> b = data_of(path);
  // signature, K = 2, then each instance: its u4 count and its characters.
  const std::vector<unsigned char> expected = {0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a,
                                               2,    2,    0,    0,    0,    'a',  'b',  3,
                                               0,    0,    0,    'x',  'y',  'z'};
  EXPECT_EQ(b, expected);
  model::Tree tree = dudley::open(path);
  EXPECT_EQ(read_text(at(tree, "/names/0")), "ab");
  EXPECT_EQ(read_text(at(tree, "/names/1")), "xyz");
}

TEST_F(WriterConstructs, StructInstancesWithSeveralMembersAndBigEndianCounts) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]\n"
      "row := { n := >i2  id := >i4  values = f8[n]  tag = S1[3] }\n"
      "rows = row[2]\n"
      "after = i4\n");
  const std::string path = file("rows.bin");
  Writer w(l, path);
  std::vector<Instance> rows(2);
  rows[0].members.emplace("values", array_of<double>({3}, {1, 2, 3}, DType::float_(8)));
  rows[0].members.emplace("tag", text("abc"));
  rows[0].params.emplace("id", 7);
  rows[1].members.emplace("values", array_of<double>({1}, {9.5}, DType::float_(8)));
  rows[1].params.emplace("id", -1);
  w.write_instances("/rows", rows);
  w.write("/after", array_of<int32_t>({}, {42}, DType::int_(4)));
  w.commit();
  const std::vector<unsigned char> b = data_of(path);
  // Instance 0 at 8: n (big-endian 3), id (big-endian 7), 24 bytes of values, "abc".
  ASSERT_GE(b.size(), 8u + 2 + 4 + 24 + 3 + 2 + 4 + 8 + 3 + 4);
  EXPECT_EQ(b[8], 0);
  EXPECT_EQ(b[9], 3);
  EXPECT_EQ((std::vector<unsigned char>(b.begin() + 10, b.begin() + 14)),
            (std::vector<unsigned char>{0, 0, 0, 7}));
  const size_t second = 8 + 2 + 4 + 24 + 3;
  EXPECT_EQ(b[second + 1], 1);     // n = 1
  EXPECT_EQ(b[second + 2], 0xff);  // id = -1
  model::Tree tree = dudley::open(path);
  NDArray v = at(tree, "/rows/0/values").data->read();
  EXPECT_EQ(v.get<double>({2}), 3.0);
  EXPECT_EQ(read_text(at(tree, "/rows/0/tag")), "abc");
  EXPECT_EQ(read_text(at(tree, "/rows/1/tag")), std::string(3, '\0'));  // not given: zeros
  EXPECT_EQ(at(tree, "/rows/1/values").data->read().get<double>({0}), 9.5);
  EXPECT_EQ(at(tree, "/after").data->read().get<int32_t>({}), 42);
  EXPECT_EQ(at(tree, "/after").storage.offset, b.size() - 4);
}

TEST_F(WriterConstructs, HeterogeneousArrayFillsItsParameterBlock) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]  NB := i4\n"
      "PB := { nx := i4  ny := i4 }[NB]\n"
      "blocks = PB{ rho = f4[ny, nx]  id = i8 }\n");
  const std::string path = file("hetero.bin");
  WriteOptions options;
  options.order = ByteOrder::kBig;
  Writer w(l, path, options);
  std::vector<Instance> blocks(3);
  blocks[0].members.emplace("rho", array_of<float>({1, 2}, {1, 2}, DType::float_(4)));
  blocks[1].members.emplace("rho", array_of<float>({2, 3}, {1, 2, 3, 4, 5, 6}, DType::float_(4)));
  blocks[1].members.emplace("id", array_of<int64_t>({}, {99}, DType::int_(8)));
  blocks[2].params.emplace("nx", 0);
  blocks[2].params.emplace("ny", 4);
  w.write_instances("/blocks", blocks);
  w.commit();
  EXPECT_EQ(w.param_values().begin()->second, 3);  // NB from the number of instances
  const std::vector<unsigned char> b = data_of(path);
  // NB (4 bytes big-endian), then the block rows (nx, ny) x 3, then the elements.
  EXPECT_EQ(b[11], 3);
  EXPECT_EQ(b[15], 2);  // nx of block 0
  EXPECT_EQ(b[19], 1);  // ny of block 0
  EXPECT_EQ(b[23], 3);  // nx of block 1
  EXPECT_EQ(b[35], 4);  // ny of block 2
  model::Tree tree = dudley::open(path);
  EXPECT_EQ(at(tree, "/blocks/1/rho").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(at(tree, "/blocks/1/rho").data->read().get<float>({1, 2}), 6.0f);
  EXPECT_EQ(at(tree, "/blocks/1/id").data->read().get<int64_t>({}), 99);
  EXPECT_EQ(at(tree, "/blocks/2/rho").shape, (std::vector<int64_t>{4, 0}));
  // An element whose shape contradicts its own parameter.
  Writer bad(l, file("bad.bin"), options);
  std::vector<Instance> one(1);
  one[0].params.emplace("nx", 5);
  one[0].members.emplace("rho", array_of<float>({1, 2}, {1, 2}, DType::float_(4)));
  EXPECT_THROW(bad.write_instances("/blocks", one), Error);
}

TEST_F(WriterConstructs, PointeesAndThePointersToThem) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]\n"
      "refs = p8[3]\n"
      "17 = f8[2] @ 64\n"
      "23 = i4[3] @ 80\n");
  const std::string path = file("ptr.bin");
  Writer w(l, path);
  w.write("/refs", array_of<uint64_t>({3}, {17, 0, 23}, DType::uint(8)));
  w.write_pointee(17, array_of<double>({2}, {0.5, 1.5}, DType::float_(8)));
  w.write_pointee(23, array_of<int32_t>({3}, {4, 5, 6}, DType::int_(4)));
  EXPECT_EQ(w.commit(), 92u + kPairTrailerBytes);
  model::Tree tree = dudley::open(path);
  EXPECT_EQ(at(tree, "/refs").data->read().get<uint64_t>({2}), 23u);
  ASSERT_EQ(tree.pointees.count(23), 1u);
  EXPECT_EQ(tree.pointees.at(23)->data->read().get<int32_t>({2}), 6);
  EXPECT_EQ(tree.pointees.at(17)->data->read().get<double>({1}), 1.5);
  // A pointer to nothing is refused before anything is written.
  Writer dangling(l, file("dangling.bin"));
  dangling.write("/refs", array_of<uint64_t>({3}, {17, 5, 0}, DType::uint(8)));
  try {
    dangling.commit();
    FAIL() << "a dangling pointer was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("points to 5"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file("dangling.bin")));
  EXPECT_THROW(w.write_pointee(99, array_of<double>({2}, {0, 0}, DType::float_(8))), Error);
}

TEST_F(WriterConstructs, RegionsOfAnItemFromSeveralCalls) {
  Layout l = parse_ok("!DUDLEY := S1[8]  NT := i4  NX := i4  u = f8[NT, NX]  names = S1[NT, 4]");
  const std::string path = file("slab.bin");
  WriteOptions options;
  options.order = ByteOrder::kBig;  // swapped on the way
  Writer w(l, path, options);
  w.set_param("NT", 3);
  w.set_param("NX", 4);
  // Row by row, as a time-stepping code would, and a strided column last.
  for (int t = 0; t < 3; ++t) {
    std::vector<double> row(4);
    for (int x = 0; x < 4; ++x) row[static_cast<size_t>(x)] = 10.0 * t + x;
    w.write("/u", array_of<double>({1, 4}, row, DType::float_(8)), Hyperslab{{t, 0}, {1, 4}, {}});
  }
  w.write("/u", array_of<double>({2, 1}, {-1, -2}, DType::float_(8)),
          Hyperslab{{0, 3}, {2, 1}, {2, 1}});
  NDArray name(DType::text(TextEncoding::kAscii, 4), Shape({1}));
  std::memcpy(name.mutable_data(), "ab_d", 4);
  w.write("/names", name, Hyperslab{{1}, {1}, {}});
  EXPECT_THROW(
      w.write("/u", array_of<double>({2}, {0, 0}, DType::float_(8)), Hyperslab{{0, 0}, {1, 2}, {}}),
      Error);  // counts must be the array's shape
  w.commit();
  model::Tree tree = dudley::open(path);
  NDArray u = at(tree, "/u").data->read().to_native();
  EXPECT_EQ(u.get<double>({1, 2}), 12.0);
  EXPECT_EQ(u.get<double>({0, 3}), -1.0);
  EXPECT_EQ(u.get<double>({1, 3}), 13.0);
  EXPECT_EQ(u.get<double>({2, 3}), -2.0);
  const std::vector<unsigned char> b = data_of(path);
  const size_t names = 8 + 4 + 4 + 12 * 8;
  EXPECT_EQ(std::string(b.begin() + names + 4, b.begin() + names + 8), "ab_d");
  // A region outside the item is refused at commit, naming the item.
  Writer outside(l, file("outside.bin"), options);
  outside.set_param("NT", 1);
  outside.set_param("NX", 4);
  outside.write("/u", array_of<double>({1, 4}, {0, 0, 0, 0}, DType::float_(8)),
                Hyperslab{{1, 0}, {1, 4}, {}});
  try {
    outside.commit();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/u"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(file("outside.bin")));
  // Counts and strides near 2^63 are refused, not overflowed.
  Writer huge(l, file("huge.bin"), options);
  huge.set_param("NT", 3);
  huge.set_param("NX", 4);
  NDArray one(DType::float_(8), Shape({1, 1}));
  huge.write("/u", one, Hyperslab{{1, 0}, {1, 1}, {int64_t{1} << 62, 1}});
  EXPECT_NO_THROW(huge.commit());  // one element: the stride is never taken
  Writer wraps(l, file("wraps.bin"), options);
  wraps.set_param("NT", 3);
  wraps.set_param("NX", 4);
  NDArray two(DType::float_(8), Shape({2, 1}));
  wraps.write("/u", two, Hyperslab{{1, 0}, {2, 1}, {int64_t{1} << 62, 1}});
  EXPECT_THROW(wraps.commit(), Error);
}

TEST_F(WriterConstructs, AppendedListItemsGoAfterEverythingAndTheLayoutSaysSo) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]\n"
      "history = [ = i4[2] ]\n"
      "mesh /  x = f8[3] ..\n"
      "late = u1 @ 200\n"
      "early = u1 @ 100\n");
  const std::string path = file("append.bin");
  Writer w(l, path);
  w.write("/history/0", array_of<int32_t>({2}, {1, 2}, DType::int_(4)));
  EXPECT_EQ(w.append("/history", array_of<double>({2, 2}, {1, 2, 3, 4}, DType::float_(8))),
            "/history/1");
  EXPECT_EQ(w.append("/history", text("step")), "/history/2");
  EXPECT_THROW(w.append("/mesh", text("x")), Error);  // a group, not a list
  w.commit();
  model::Tree tree = dudley::open(path);
  const model::Node& second = at(tree, "/history/1");
  EXPECT_EQ(second.storage.offset, 201u);  // after `late`, not after `early`
  EXPECT_EQ(second.data->read().get<double>({1, 1}), 4.0);
  EXPECT_EQ(read_text(at(tree, "/history/2")), "step");
  EXPECT_EQ(at(tree, "/history/0").data->read().get<int32_t>({1}), 2);
  // The layout written beside it parses and re-emits to itself (canonical).
  std::ifstream in(layout_path_for(path));
  const std::string text_written = without_pair_line({std::istreambuf_iterator<char>(in), {}});
  EXPECT_EQ(emit_layout(parse_ok(text_written)), text_written);
  EXPECT_NE(text_written.find("history = ["), text_written.rfind("history = ["));
}

TEST_F(WriterConstructs, AFileConvertedIntoItsOwnLayoutIsTheSameBytes) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]  NB := i4  K := u2\n"
      "string := { n := u1  = S1[n] }\n"
      "row := { n := >u2  id := i4  v = f4[n] }\n"
      "PB := { k := i4 }[NB]\n"
      "names = string[K]  one = row  rows = row[2]  blocks = PB{ z = i2[k] }\n"
      "refs = p4[2]  5 = f8[2] @ 256\n");
  const std::string path = file("all.bin");
  Writer w(l, path);
  w.write_instances("/names", {text("ab"), text("c"), text("")});
  std::vector<Instance> one(1);
  one[0].members.emplace("v", array_of<float>({2}, {1, 2}, DType::float_(4)));
  one[0].params.emplace("id", 77);
  w.write_instances("/one", one);
  std::vector<Instance> rows(2);
  rows[0].params.emplace("id", 1);
  rows[1].members.emplace("v", array_of<float>({1}, {3}, DType::float_(4)));
  rows[1].params.emplace("id", -2);
  w.write_instances("/rows", rows);
  std::vector<Instance> blocks(2);
  blocks[0].members.emplace("z", array_of<int16_t>({3}, {1, 2, 3}, DType::int_(2)));
  blocks[1].params.emplace("k", 1);
  w.write_instances("/blocks", blocks);
  w.write("/refs", array_of<uint32_t>({2}, {5, 0}, DType::uint(4)));
  w.write_pointee(5, array_of<double>({2}, {0.25, 4}, DType::float_(8)));
  w.commit();

  const model::Tree tree = dudley::open(path);
  const std::string copy = file("copy.bin");
  std::vector<std::string> unused;
  write_tree_into(tree, l, copy, {}, &unused);
  EXPECT_EQ(data_of(copy), data_of(path));
  EXPECT_TRUE(unused.empty()) << unused.front();
  // Into a smaller layout: what it lacks is listed.
  Layout part = parse_ok(
      "!DUDLEY := S1[8]  K := u2  string := { n := u1  = S1[n] }  "
      "names = string[K]");
  write_tree_into(tree, part, file("part.bin"), {}, &unused);
  EXPECT_EQ(read_text(at(dudley::open(file("part.bin")), "/names/0")), "ab");
  EXPECT_EQ(unused.size(), 6u);  // one/v, rows/0/v, rows/1/v, blocks/0/z, blocks/1/z, refs
  // Into a layout whose structure the tree does not have: the error names the place.
  Layout other = parse_ok(
      "!DUDLEY := S1[8]  K := u2  string := { n := u1  = S1[n] }  "
      "refs = string[K]");
  try {
    write_tree_into(tree, other, file("other.bin"));
    FAIL() << "an array was taken for a list of instances";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/refs: the layout's instances need a list here"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(file("other.bin")));
}

TEST_F(WriterConstructs, InstancesNestedInInstances) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]\n"
      "string := { n := u1  = S1[n] }\n"
      "rec := { k := u1  names = string[k]  id = <i2 }\n"
      "r = rec[2]\n");
  const std::string path = file("nested.bin");
  WriteOptions options;
  options.order = ByteOrder::kLittle;
  Writer w(l, path, options);
  std::vector<Instance> recs(2);
  recs[0].nested["names"] = {Instance{{{"", text("A")}}, {}, {}},
                             Instance{{{"", text("BC")}}, {}, {}}};
  recs[0].members.emplace("id", array_of<int16_t>({}, {7}, DType::int_(2)));
  recs[1].members.emplace("id", array_of<int16_t>({}, {-1}, DType::int_(2)));
  w.write_instances("/r", recs);
  w.commit();
  // signature; rec 0: k = 2, [1 'A'], [2 'B' 'C'], id 7; rec 1: k = 0, id -1.
  const std::vector<unsigned char> expected = {
      0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a, 2, 1, 'A', 2, 'B', 'C', 7, 0, 0, 0xff, 0xff};
  EXPECT_EQ(data_of(path), expected);
  model::Tree tree = dudley::open(path);
  EXPECT_EQ(read_text(at(tree, "/r/0/names/1")), "BC");
  EXPECT_EQ(at(tree, "/r/1/id").data->read().get<int16_t>({}), -1);
  // Converted into its own layout: the same bytes.
  write_tree_into(tree, l, file("again.bin"));
  EXPECT_EQ(data_of(file("again.bin")), expected);
  // A nested count that contradicts a parameter given.
  Writer bad(l, file("bad.bin"), options);
  std::vector<Instance> one(1);
  one[0].params.emplace("k", 3);
  one[0].nested["names"] = {Instance{{{"", text("A")}}, {}, {}}};
  EXPECT_THROW(bad.write_instances("/r", one), Error);
  // Arrays where instances are expected, and the other way round.
  std::vector<Instance> wrong(1);
  wrong[0].members.emplace("names", text("AB"));
  EXPECT_THROW(bad.write_instances("/r", wrong), Error);
}

TEST_F(WriterConstructs, FamilyMembersWithCountedArraysButNoAppends) {
  Layout l = parse_ok(
      "!DUDLEY := S1[8]  N := i4  string := { n := u1  = S1[n] }\n"
      "name = string  x = f8[N]");
  FamilyWriter family(l, file("fam"));
  const char* names[] = {"first", "second member"};
  for (int i = 0; i < 2; ++i) {
    Writer& w = family.add();
    w.write_instances("/name", {text(names[i])});
    w.write("/x", array_of<double>({i + 1}, std::vector<double>(i + 1, 1.0), DType::float_(8)));
    EXPECT_THROW(w.append("/x", text("no")), Error);  // not a list, and a member anyway
    w.commit();
  }
  const FamilyIndex index = read_family_index(family.finish());
  for (size_t i = 0; i < 2; ++i) {
    model::Tree tree = dudley::open(index.files[i]);  // STEM_NNNN.bin finds STEM.dud
    EXPECT_EQ(read_text(at(tree, "/name")), names[i]);
    EXPECT_EQ(at(tree, "/x").shape, (std::vector<int64_t>{static_cast<int64_t>(i) + 1}));
  }
  Layout with_list = parse_ok("!DUDLEY := S1[8]  L = [ = u1 ]");
  FamilyWriter lists(with_list, file("lists"));
  try {
    lists.add().append("/L", text("ab"));
    FAIL() << "a family member appended to its shared layout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("family member"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dudley::layout
