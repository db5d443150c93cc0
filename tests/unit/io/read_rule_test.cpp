// The rule for reading (io/read_rule.hpp) and the directory store that keeps to it: paths
// judged where they really lead (symbolic links, "..", absolute names), folders allowed
// besides the data's own.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "dudley/core/error.hpp"
#include "dudley/io/read_rule.hpp"
#include "dudley/io/store.hpp"

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

// A fresh directory holding data/ (the data's folder) and outside/ (a secret beside it).
class ReadRuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dudley-read-rule-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = fs::canonical(pattern);
    fs::create_directories(root_ / "data" / "store" / "c");
    fs::create_directories(root_ / "outside");
    write(root_ / "outside" / "secret", "CANARY");
    write(root_ / "data" / "x.h5", "inside");
    write(root_ / "data" / "store" / "c" / "0", "chunk");
  }
  void TearDown() override { fs::remove_all(root_); }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

  fs::path root_;
};

TEST_F(ReadRuleTest, AFileInTheFolderIsAllowedOneLeadingOutIsNot) {
  const ReadRule rule = ReadRule::for_file((root_ / "data" / "x.h5").string());
  ASSERT_EQ(rule.folders(), std::vector<std::string>{(root_ / "data").string()});
  EXPECT_TRUE(rule.check((root_ / "data" / "x.h5").string()).ok);
  EXPECT_TRUE(rule.check((root_ / "data" / "store" / "c" / ".." / "c" / "0").string()).ok);

  const ReadRule::Verdict up = rule.check((root_ / "data" / ".." / "outside" / "secret").string());
  EXPECT_FALSE(up.ok);
  EXPECT_TRUE(up.outside);
  EXPECT_EQ(up.resolved, (root_ / "outside" / "secret").string());
  EXPECT_NE(up.why.find("lies outside " + (root_ / "data").string()), std::string::npos) << up.why;

  // A symbolic link in the folder counts where it leads.
  fs::create_symlink(root_ / "outside" / "secret", root_ / "data" / "link");
  const ReadRule::Verdict link = rule.check((root_ / "data" / "link").string());
  EXPECT_FALSE(link.ok);
  EXPECT_TRUE(link.outside);
  EXPECT_EQ(link.resolved, (root_ / "outside" / "secret").string());

  // A folder whose name starts like the data's is another folder.
  fs::create_directories(root_ / "data2");
  write(root_ / "data2" / "y", "y");
  EXPECT_TRUE(rule.check((root_ / "data2" / "y").string()).outside);
}

TEST_F(ReadRuleTest, MissingFilesAreMissingOrOutsideWhereTheyWouldBe) {
  const ReadRule rule = ReadRule::for_file((root_ / "data" / "x.h5").string());
  const ReadRule::Verdict in = rule.check((root_ / "data" / "nothing.h5").string());
  EXPECT_FALSE(in.ok);
  EXPECT_TRUE(in.missing);
  EXPECT_FALSE(in.outside);
  EXPECT_EQ(in.why, "does not exist");
  const ReadRule::Verdict out = rule.check((root_ / "data" / ".." / "outside" / "none").string());
  EXPECT_FALSE(out.ok);
  EXPECT_TRUE(out.outside);
  EXPECT_NE(out.why.find("would be " + (root_ / "outside" / "none").string()), std::string::npos)
      << out.why;
}

TEST_F(ReadRuleTest, FoldersAllowedBesidesTheDatas) {
  const std::string secret = (root_ / "outside" / "secret").string();
  EXPECT_TRUE(ReadRule::for_file((root_ / "data" / "x.h5").string(), {(root_ / "outside").string()})
                  .check(secret)
                  .ok);
  EXPECT_TRUE(ReadRule::for_file((root_ / "data" / "x.h5").string(), {"/"}).check(secret).ok);
  // An allowed folder given through a symbolic link allows where it leads.
  fs::create_directory_symlink(root_ / "outside", root_ / "alias");
  const ReadRule via =
      ReadRule::for_file((root_ / "data" / "x.h5").string(), {(root_ / "alias").string()});
  EXPECT_TRUE(via.check(secret).ok);
  // Data at a URL names no local file: nothing is allowed.
  EXPECT_TRUE(ReadRule().check(secret).outside);
}

TEST_F(ReadRuleTest, ADirectoryStoreReadsNoKeyLeadingOutside) {
  const std::string store_dir = (root_ / "data" / "store").string();
  fs::create_symlink(root_ / "outside" / "secret", root_ / "data" / "store" / "c" / "1");
  fs::create_symlink("../../outside", root_ / "data" / "store" / "up");
  const auto store = open_directory_store(store_dir);
  std::byte buffer[6];
  EXPECT_EQ(store->size("c/0"), std::optional<uint64_t>(5));
  EXPECT_EQ(store->size("c/9"), std::nullopt);  // absent: no error
  for (const char* key : {"c/1", "up/secret", "../../outside/secret"}) {
    try {
      (void)store->size(key);
      ADD_FAILURE() << key << ": size() answered";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kData) << key;
      // The refusal says why (a key's own "outside" proves nothing): a climbing key is no
      // key of the store; a link is followed to where it leads and refused there, naming
      // the folder reads keep to.
      if (std::string_view(key).starts_with("..")) {
        EXPECT_NE(e.message().find("is not a plain key"), std::string::npos) << e.message();
      } else {
        EXPECT_NE(e.message().find("not read: it leads to " + (root_ / "outside").string()),
                  std::string::npos)
            << e.message();
        EXPECT_NE(e.message().find(", outside " + store_dir), std::string::npos) << e.message();
      }
    }
    EXPECT_THROW(store->read(key, 0, 6, buffer), Error) << key;
  }
  // The folder allowed: read, and the value is the secret's.
  const auto allowed = open_directory_store(store_dir, {(root_ / "outside").string()});
  EXPECT_EQ(allowed->size("c/1"), std::optional<uint64_t>(6));
  allowed->read("c/1", 0, 6, buffer);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer), 6), "CANARY");
  // A link that stays inside the store is no escape.
  fs::create_symlink("0", root_ / "data" / "store" / "c" / "2");
  EXPECT_EQ(store->size("c/2"), std::optional<uint64_t>(5));
}

// Writes and removals keep to the store as reads do: a folder of the store that is a link
// to a folder elsewhere, or a key that is a link, is refused (Error(kUsage) naming the key),
// and nothing outside changes.
TEST_F(ReadRuleTest, ADirectoryStoreWritesAndRemovesNothingThroughALink) {
  const std::string store_dir = (root_ / "data" / "store").string();
  fs::create_directory_symlink(root_ / "outside", root_ / "data" / "store" / "linked");
  fs::create_symlink(root_ / "outside" / "secret", root_ / "data" / "store" / "c" / "7");
  const auto store = open_directory_store(store_dir);
  const std::byte value[3] = {std::byte{'n'}, std::byte{'e'}, std::byte{'w'}};
  for (const char* key : {"linked/secret", "linked/new", "c/7"}) {
    try {
      store->write(key, value);
      ADD_FAILURE() << key << ": written";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kUsage) << key;
      EXPECT_NE(e.message().find("not written or removed through it"), std::string::npos)
          << e.message();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
    const std::string erased[] = {key};
    EXPECT_THROW(store->erase_many(erased), Error) << key;
  }
  std::ifstream secret(root_ / "outside" / "secret");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(secret), {}), "CANARY");
  EXPECT_FALSE(fs::exists(root_ / "outside" / "new"));
  EXPECT_TRUE(fs::is_symlink(root_ / "data" / "store" / "c" / "7"));
  // A plain key beside them is written and removed, its emptied folder with it.
  store->write("d/0", value);
  EXPECT_EQ(fs::file_size(root_ / "data" / "store" / "d" / "0"), 3u);
  const std::string plain[] = {"d/0"};
  store->erase_many(plain);
  EXPECT_FALSE(fs::exists(root_ / "data" / "store" / "d"));
}

}  // namespace
}  // namespace dudley::io
