// What is already at a Zarr output's destination (issue 62): the keys of the store rooted
// there, which a new store replaces, and everything else, which a save never touches.
#include "formats/zarr/existing_store.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"

namespace dudley::zarr {
namespace {

Bytes text(const std::string& s) {
  Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

const char* kArrayV3 = R"({"zarr_format": 3, "node_type": "array"})";
const char* kGroupV3 = R"({"zarr_format": 3, "node_type": "group"})";

TEST(ExistingStore, SortsTheStoresKeysFromTheRest) {
  std::map<std::string, Bytes> values{
      {"zarr.json", text(kGroupV3)},
      {"a/zarr.json", text(kArrayV3)},
      {"a/c/0/1", text("chunk")},
      {"a/c.0.1", text("chunk, '.' separated")},
      {"a/c", text("0-d chunk")},
      {"a/notes.txt", text("a user's file inside an array")},
      {"g/zarr.json", text(kGroupV3)},
      {"g/c/0", text("a group has no chunks")},
      {"v2/.zarray", text("{}")},
      {"v2/.zattrs", text("{}")},
      {"v2/0.1", text("v2 chunk")},
      {"v2/0/1", text("v2 chunk, '/' separated")},
      {"thesis.txt", text("the user's")},
      {"loose/zarr.json", text(kGroupV3)},  // a group of the root's
      {"other/x/zarr.json", text(kArrayV3)},
      {"other/x/c/0", text("a store in a folder of the user's")},
  };
  auto store = io::memory_store(values, "mem");
  ExistingStore e = existing_store(*store, "");
  EXPECT_EQ(e.metadata, (std::vector<std::string>{"a/zarr.json", "g/zarr.json", "loose/zarr.json",
                                                  "v2/.zarray", "v2/.zattrs", "zarr.json"}));
  EXPECT_EQ(e.chunks, (std::vector<std::string>{"a/c", "a/c.0.1", "a/c/0/1", "v2/0.1", "v2/0/1"}));
  EXPECT_EQ(e.foreign, (std::vector<std::string>{"a/notes.txt", "g/c/0", "other/x/c/0",
                                                 "other/x/zarr.json", "thesis.txt"}));
}

TEST(ExistingStore, NothingIsTheStoresWithoutARootNode) {
  std::map<std::string, Bytes> values{{"a.zarr/zarr.json", text(kArrayV3)},
                                      {"a.zarr/c/0", text("x")}};
  auto store = io::memory_store(values, "mem");
  const ExistingStore e = existing_store(*store, "");
  EXPECT_TRUE(e.metadata.empty());
  EXPECT_TRUE(e.chunks.empty());
  EXPECT_EQ(e.foreign.size(), 2U);
  // Under a prefix, the prefix is the root.
  const ExistingStore below = existing_store(*store, "a.zarr");
  EXPECT_EQ(below.metadata, std::vector<std::string>{"zarr.json"});
  EXPECT_EQ(below.chunks, std::vector<std::string>{"c/0"});
  EXPECT_TRUE(below.foreign.empty());
}

TEST(ExistingStore, AnArrayWhoseDocumentCannotBeReadOwnsNoChunk) {
  std::map<std::string, Bytes> values{{"zarr.json", text("{not json")}, {"c/0", text("x")}};
  const ExistingStore e = existing_store(*io::memory_store(values, "mem"), "");
  EXPECT_EQ(e.metadata, std::vector<std::string>{"zarr.json"});
  EXPECT_EQ(e.foreign, std::vector<std::string>{"c/0"});
}

// An empty folder in a node's folder is one a writer made for an array it then left out;
// any other empty folder, and a link, is the user's.
TEST(ExistingStore, ADirectorysOwnEmptyFoldersAndTheUsers) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "dudley-existing-store-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "x" / "c");
  fs::create_directories(dir / "left_out");
  fs::create_directories(dir / "user" / "empty");
  std::ofstream(dir / "zarr.json") << kGroupV3;
  std::ofstream(dir / "x" / "zarr.json") << kArrayV3;
  std::ofstream(dir / "x" / "c" / "0") << "chunk";
  fs::create_symlink("/etc/hostname", dir / "link");
  const ExistingStore e = existing_directory(dir.string());
  EXPECT_EQ(e.metadata, (std::vector<std::string>{"x/zarr.json", "zarr.json"}));
  EXPECT_EQ(e.chunks, std::vector<std::string>{"x/c/0"});
  EXPECT_EQ(e.foreign, (std::vector<std::string>{"link", "user/empty/"}));
  EXPECT_EQ(first_foreign(e), "'link' and 'user/empty/'");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dudley::zarr
