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

// A 2 x 4 array in chunks of 1 x 2 (a 2 x 2 grid), keys "c/I/J".
const char* kArrayV3 = R"({"zarr_format": 3, "node_type": "array", "shape": [2, 4],
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 2]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}})";
// A 0-d array: its one chunk is "c".
const char* kScalarV3 = R"({"zarr_format": 3, "node_type": "array", "shape": [],
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": []}},
  "chunk_key_encoding": {"name": "default"}})";
const char* kGroupV3 = R"({"zarr_format": 3, "node_type": "group"})";
// A v2 array of 2 x 3 in chunks of 1 x 2 (a 2 x 2 grid), keys "I.J".
const char* kArrayV2 = R"({"zarr_format": 2, "shape": [2, 3], "chunks": [1, 2]})";

TEST(ExistingStore, SortsTheStoresKeysFromTheRest) {
  std::map<std::string, Bytes> values{
      {"zarr.json", text(kGroupV3)},
      {"a/zarr.json", text(kArrayV3)},
      {"a/c/0/1", text("chunk")},
      {"a/c/1/1", text("chunk")},
      {"a/c/2/0", text("outside the grid")},
      {"a/c.0.1", text("another separator than the array's")},
      {"a/c", text("not a 2-d array's key")},
      {"a/c/01/1", text("a leading zero")},
      {"a/notes.txt", text("a user's file inside an array")},
      {"s/zarr.json", text(kScalarV3)},
      {"s/c", text("0-d chunk")},
      {"g/zarr.json", text(kGroupV3)},
      {"g/c/0", text("a group has no chunks")},
      {"v2/.zarray", text(kArrayV2)},
      {"v2/.zattrs", text("{}")},
      {"v2/1.1", text("v2 chunk")},
      {"v2/0/1", text("not this array's separator")},
      {"thesis.txt", text("the user's")},
      {"loose/zarr.json", text(kGroupV3)},  // a group of the root's
      {"other/x/zarr.json", text(kArrayV3)},
      {"other/x/c/0/0", text("a store in a folder of the user's")},
      {"cfg/zarr.json", text(R"({"api_key": "a user's settings named zarr.json"})")},
      {"cfg/.zgroup", text("not zarr")},
      {"cfg/results/.zattrs", text("{}")},
  };
  auto store = io::memory_store(values, "mem");
  ExistingStore e = existing_store(*store, "");
  EXPECT_EQ(e.metadata,
            (std::vector<std::string>{"a/zarr.json", "g/zarr.json", "loose/zarr.json",
                                      "s/zarr.json", "v2/.zarray", "v2/.zattrs", "zarr.json"}));
  EXPECT_EQ(e.chunks, (std::vector<std::string>{"a/c/0/1", "a/c/1/1", "s/c", "v2/1.1"}));
  EXPECT_EQ(e.foreign, (std::vector<std::string>{
                           "a/c", "a/c.0.1", "a/c/01/1", "a/c/2/0", "a/notes.txt", "cfg/.zgroup",
                           "cfg/results/.zattrs", "cfg/zarr.json", "g/c/0", "other/x/c/0/0",
                           "other/x/zarr.json", "thesis.txt", "v2/0/1"}));
}

// A folder whose zarr.json is a user's file of settings is no store: everything is theirs.
TEST(ExistingStore, DocumentsMustReadAsZarrs) {
  std::map<std::string, Bytes> values{{"zarr.json", text(R"({"api_key": "x"})")},
                                      {".zgroup", text("not zarr")},
                                      {"results/.zattrs", text("my results")},
                                      {"results/.zgroup", text("x")}};
  const ExistingStore e = existing_store(*io::memory_store(values, "mem"), "");
  EXPECT_TRUE(e.metadata.empty());
  EXPECT_EQ(e.foreign.size(), 4U);
}

TEST(ExistingStore, NothingIsTheStoresWithoutARootNode) {
  std::map<std::string, Bytes> values{{"a.zarr/zarr.json", text(kArrayV3)},
                                      {"a.zarr/c/0/0", text("x")}};
  auto store = io::memory_store(values, "mem");
  const ExistingStore e = existing_store(*store, "");
  EXPECT_TRUE(e.metadata.empty());
  EXPECT_TRUE(e.chunks.empty());
  EXPECT_EQ(e.foreign.size(), 2U);
  // Under a prefix, the prefix is the root.
  const ExistingStore below = existing_store(*store, "a.zarr");
  EXPECT_EQ(below.metadata, std::vector<std::string>{"zarr.json"});
  EXPECT_EQ(below.chunks, std::vector<std::string>{"c/0/0"});
  EXPECT_TRUE(below.foreign.empty());
}

TEST(ExistingStore, AnArrayWhoseDocumentCannotBeReadOwnsNoChunk) {
  std::map<std::string, Bytes> values{{"zarr.json", text("{not json")}, {"c/0", text("x")}};
  const ExistingStore e = existing_store(*io::memory_store(values, "mem"), "");
  EXPECT_TRUE(e.metadata.empty());  // no node: its name alone makes none
  EXPECT_EQ(e.foreign, (std::vector<std::string>{"c/0", "zarr.json"}));
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
  fs::create_directories(dir / "x" / "c" / "0");
  std::ofstream(dir / "x" / "c" / "0" / "0") << "chunk";
  fs::create_symlink("/etc/hostname", dir / "link");
  const ExistingStore e = existing_directory(dir.string());
  EXPECT_EQ(e.metadata, (std::vector<std::string>{"x/zarr.json", "zarr.json"}));
  EXPECT_EQ(e.chunks, std::vector<std::string>{"x/c/0/0"});
  EXPECT_EQ(e.foreign, (std::vector<std::string>{"link", "user/empty/"}));
  EXPECT_EQ(first_foreign(e), "'link' and 'user/empty/'");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dudley::zarr
