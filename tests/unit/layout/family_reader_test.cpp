// layout::FamilyReader: one plan for many members, one item of each into rows, members that
// differ found and named, a family read through its index.
#include "dudley/layout/family/family_reader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/io/batch_io.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/writer.hpp"
#include "test_support.hpp"

namespace dudley::layout {
namespace {

using FamilyReaderTest = dudley::testing::TempDirTest;

// A family of `count` members of family_layout(): N = n_of(member); x[i] = 10 * member + i;
// s = member. Returns its index.
std::string write_members(const Layout& l, const std::string& stem, int count,
                          const std::function<int64_t(int)>& n_of, bool params_in_files = true) {
  FamilyOptions options;
  options.params_in_files = params_in_files;
  FamilyWriter family(l, stem, options);
  for (int m = 0; m < count; ++m) {
    const int64_t n = n_of(m);
    std::vector<double> x;
    for (int64_t i = 0; i < n; ++i) x.push_back(10.0 * m + static_cast<double>(i));
    Writer& w = family.add();
    w.write("/x", testing::array_of<double>({n}, x, DType::float_(8)));
    w.write("/s", testing::array_of<int32_t>({}, {m}, DType::int_(4)));
    w.commit();
  }
  return family.finish();
}

// Three members: N = 2, 2, `last_n`.
std::string write_family(const Layout& l, const std::string& stem, int64_t last_n,
                         bool params_in_files = true) {
  return write_members(
      l, stem, 3, [last_n](int m) { return m == 2 ? last_n : 2; }, params_in_files);
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

// `count` members, N = `n` except where `odd_n` says. Returns the member files.
std::vector<std::string> write_many(const Layout& l, const std::string& stem, int count,
                                    int64_t n = 2,
                                    const std::function<int64_t(int)>& odd_n = nullptr) {
  write_members(l, stem, count, [&](int m) { return odd_n ? odd_n(m) : n; });
  std::vector<std::string> files;
  for (int m = 0; m < count; ++m) files.push_back(fmt::format("{}_{:04d}.bin", stem, m));
  return files;
}

// The batched reads run on io_uring and on the system-call loop: both are checked.
class FamilyBatchTest : public FamilyReaderTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    FamilyReaderTest::SetUp();
    ::setenv("DUDLEY_IO_URING", GetParam() ? "1" : "0", 1);
    if (GetParam() && !io::BatchIo::uses_io_uring()) GTEST_SKIP() << "no io_uring here";
  }
  void TearDown() override {
    ::unsetenv("DUDLEY_IO_URING");
    FamilyReaderTest::TearDown();
  }
};

TEST_P(FamilyBatchTest, ManyMembersAreReadInBatchesOnSeveralThreads) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  // 300 members: several batches of 64 on each thread, the last batch short.
  const FamilyReader family(layout,
                            FamilyReader::members_of(write_many(*layout, file("run"), 300), {}));
  const NodeId x = family.layout().find("/x");
  const std::optional<FamilyItem> item = family.item(x);
  ASSERT_TRUE(item);
  std::vector<double> rows(600, -1.0);
  EXPECT_EQ(family.read_rows(x, *item, Hyperslab::all(item->shape), rows.data()), std::nullopt);
  for (int m = 0; m < 300; ++m) {
    ASSERT_EQ(rows[2 * m], 10.0 * m) << "member " << m;
    ASSERT_EQ(rows[2 * m + 1], 10.0 * m + 1) << "member " << m;
  }
  // The head (N) and the item read ahead do not confuse members: s follows x in each file.
  const NodeId s = family.layout().find("/s");
  std::vector<int32_t> ss(300, -1);
  EXPECT_EQ(family.read_rows(s, *family.item(s), Hyperslab::all({}), ss.data()), std::nullopt);
  for (int m = 0; m < 300; ++m) ASSERT_EQ(ss[m], m);
}

TEST_P(FamilyBatchTest, TheEarliestProblemInMemberOrderIsTheOneReported) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  // Member 200 has another shape, member 150's file is gone.
  std::vector<std::string> files =
      write_many(*layout, file("run"), 300, 2, [](int m) { return m == 200 ? 3 : 2; });
  std::filesystem::remove(files[150]);
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  const NodeId x = family.layout().find("/x");
  const FamilyItem item = *family.item(x);
  std::vector<double> rows(600, -1.0);
  try {
    (void)family.read_rows(x, item, Hyperslab::all(item.shape), rows.data());
    FAIL() << "a missing member was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run_0150.bin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rows[2 * 149], 1490.0);  // every member before it is read

  // Member 100 of another shape comes before the missing one: it is what read_rows returns.
  files = write_many(*layout, file("two"), 300, 2, [](int m) { return m == 100 ? 3 : 2; });
  std::filesystem::remove(files[150]);
  const FamilyReader second(layout, FamilyReader::members_of(files, {}));
  EXPECT_EQ(second.read_rows(x, item, Hyperslab::all(item.shape), rows.data()), 100u);
  EXPECT_EQ(rows[2 * 99 + 1], 991.0);
}

TEST_P(FamilyBatchTest, AShortMemberIsAnErrorNamingItAndTheItem) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  std::vector<std::string> files = write_many(*layout, file("run"), 100);
  // Member 70 ends inside x: the batched read comes short, the member's own read says so.
  std::filesystem::resize_file(files[70], std::filesystem::file_size(files[70]) - 12);
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  const NodeId s = family.layout().find("/s"), x = family.layout().find("/x");
  std::vector<double> rows(200);
  try {
    (void)family.read_rows(x, *family.item(x), Hyperslab::all({2}), rows.data());
    FAIL() << "a short member was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run_0070.bin"), std::string::npos) << what;
    EXPECT_NE(what.find("/x"), std::string::npos) << what;
  }
  (void)s;
}

TEST_P(FamilyBatchTest, LargeItemsAreReadWhenAskedNotAhead) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  // x of 40,000 doubles (320 kB) is more than a batch reads ahead per member.
  const int64_t n = 40000;
  ASSERT_GT(static_cast<uint64_t>(n) * 8, FamilyReader::kBatchItemBytes);
  const FamilyReader family(layout,
                            FamilyReader::members_of(write_many(*layout, file("big"), 20, n), {}));
  const NodeId x = family.layout().find("/x");
  const FamilyItem item = *family.item(x);
  // Every member's last element.
  const Hyperslab last = Hyperslab::parse("[-1]", item.shape);
  std::vector<double> rows(20);
  EXPECT_EQ(family.read_rows(x, item, last, rows.data()), std::nullopt);
  for (int m = 0; m < 20; ++m) EXPECT_EQ(rows[m], 10.0 * m + (n - 1));
}

TEST_P(FamilyBatchTest, BindBatchBindsMembersWithTheirItemsReadAhead) {
  const auto layout = std::make_shared<const Layout>(family_layout());
  std::vector<std::string> files = write_many(*layout, file("run"), 10);
  files[3] = file("absent.bin");
  const FamilyReader family(layout, FamilyReader::members_of(files, {}));
  const NodeId x = family.layout().find("/x");
  const MemberBatchPlan plan = family.batch_plan({x});
  // What member 0's binding read: the !DUDLEY signature and N after it.
  EXPECT_EQ(plan.head_offset, 0u);
  EXPECT_GE(plan.head_bytes, 12u);
  const std::unique_ptr<io::BatchIo> io = io::BatchIo::make(16);
  std::vector<BatchMember> batch = family.bind_batch(plan, 2, 5, *io);
  ASSERT_EQ(batch.size(), 5u);
  for (size_t j = 0; j < 5; ++j) {
    const size_t m = 2 + j;
    if (m == 3) {
      ASSERT_TRUE(batch[j].error);
      EXPECT_THROW(std::rethrow_exception(batch[j].error), Error);
      EXPECT_FALSE(batch[j].bound.binding);
      continue;
    }
    ASSERT_FALSE(batch[j].error) << m;
    const NDArray a = read_array(*batch[j].bound.binding, x);
    EXPECT_EQ(a.get<double>({1}), 10.0 * static_cast<double>(m) + 1) << m;
  }
  EXPECT_THROW((void)family.bind_batch(plan, 8, 5, *io), Error);  // beyond the last member
}

INSTANTIATE_TEST_SUITE_P(Backends, FamilyBatchTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& backend) {
                           return backend.param ? std::string("IoUring") : std::string("Syscalls");
                         });

}  // namespace
}  // namespace dudley::layout
