// layout::FamilyReader: one plan for many members, one item of each into rows, members that
// differ found and named, a family read through its index.
#include "dudley/layout/family/family_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "dudley/core/error.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/writer.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using FamilyReaderTest = dudley::testing::TempDirTest;

// A family of three members: N = 2, 2, `last_n`; x[i] = 10 * member + i; s = member.
std::string write_family(const Layout& l, const std::string& stem, int64_t last_n,
                         bool params_in_files = true) {
  FamilyOptions options;
  options.params_in_files = params_in_files;
  FamilyWriter family(l, stem, options);
  for (int m = 0; m < 3; ++m) {
    const int64_t n = m == 2 ? last_n : 2;
    std::vector<double> x;
    for (int64_t i = 0; i < n; ++i) x.push_back(10.0 * m + static_cast<double>(i));
    Writer& w = family.add();
    w.write("/x", testing::array_of<double>({n}, x, DType::float_(8)));
    w.write("/s", testing::array_of<int32_t>({}, {m}, DType::int_(4)));
    w.commit();
  }
  return family.finish();
}

Layout family_layout() {
  return testing::parse_ok("!TEMPLATE  !DUDLEY := S1[8]  N := i4  s = i4  x = f8[N]");
}

TEST_F(FamilyReaderTest, ReadsOneItemOfEveryMemberIntoRows) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  write_family(*layout, file("run"), 2);
  std::vector<std::string> files;
  for (int m = 0; m < 3; ++m) files.push_back(file("run_000" + std::to_string(m) + ".bin"));
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  ASSERT_EQ(family.size(), 3u);
  const NodeId x = family.layout().find("/x");
  const std::optional<FamilyItem> item = family.item(x);
  ASSERT_TRUE(item);
  EXPECT_EQ(item->shape, (std::vector<int64_t>{2}));
  // The second element of each member: rows of one value.
  const Hyperslab second = Hyperslab::parse("[1]", item->shape);
  EXPECT_EQ(item->row_bytes(second), 8u);
  std::vector<double> rows(3, -1.0);
  EXPECT_EQ(family.read_rows(x, *item, second, rows.data()), std::nullopt);
  EXPECT_EQ(rows, (std::vector<double>{1.0, 11.0, 21.0}));
  // A scalar item.
  const NodeId s = family.layout().find("/s");
  std::vector<int32_t> ss(3, -1);
  ASSERT_TRUE(family.item(s));
  EXPECT_EQ(family.read_rows(s, *family.item(s), Hyperslab::all({}), ss.data()), std::nullopt);
  EXPECT_EQ(ss, (std::vector<int32_t>{0, 1, 2}));
  // Not a data item: no rows.
  EXPECT_FALSE(family.item(kNone));
}

TEST_F(FamilyReaderTest, AMemberOfAnotherShapeIsNamedAndReadOnItsOwn) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  write_family(*layout, file("run"), 5);
  std::vector<std::string> files;
  for (int m = 0; m < 3; ++m) files.push_back(file("run_000" + std::to_string(m) + ".bin"));
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  const NodeId x = family.layout().find("/x");
  const std::optional<FamilyItem> item = family.item(x);
  ASSERT_TRUE(item);
  std::vector<double> rows(6, -1.0);
  EXPECT_EQ(family.read_rows(x, *item, Hyperslab::all(item->shape), rows.data()), 2u);
  EXPECT_EQ(rows[2], 10.0);  // the members before it are read
  const NDArray last = family.read(2, x);
  EXPECT_EQ(last.shape().dims(), (std::vector<int64_t>{5}));
  EXPECT_EQ(last.get<double>({4}), 24.0);
}

TEST_F(FamilyReaderTest, AMissingOrShortMemberIsAnErrorNamingIt) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  write_family(*layout, file("run"), 2);
  std::vector<std::string> files = {file("run_0000.bin"), file("absent.bin")};
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  const NodeId x = family.layout().find("/x");
  const std::optional<FamilyItem> item = family.item(x);
  ASSERT_TRUE(item);
  std::vector<double> rows(4);
  try {
    (void)family.read_rows(x, *item, Hyperslab::all(item->shape), rows.data());
    FAIL() << "a missing member was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent.bin"), std::string::npos) << e.what();
  }
}

TEST_F(FamilyReaderTest, MembersMustShareHowTheirParametersAreStored) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  BindOptions in_file, absent;
  absent.params_absent = true;
  EXPECT_THROW(FamilyReader(layout, {{"a.bin", in_file}, {"b.bin", absent}}), Error);
  EXPECT_THROW(FamilyReader(layout, {}), Error);
}

TEST_F(FamilyReaderTest, AFamilyIndexGivesItsMembersTheirParameters) {
  const Layout l = family_layout();
  for (bool in_files : {true, false}) {
    SCOPED_TRACE(in_files ? "parameters in the files" : "parameters only in the index");
    const std::string index = write_family(l, file(in_files ? "run" : "bare"), 4, in_files);
    const FamilyReader family = FamilyReader::from_index(index);
    ASSERT_EQ(family.size(), 3u);
    const NDArray last = family.read(2, family.layout().find("/x"));
    EXPECT_EQ(last.shape().dims(), (std::vector<int64_t>{4}));
    EXPECT_EQ(last.get<double>({3}), 23.0);
  }
}

}  // namespace
}  // namespace dudley::layout
