// io::PrefetchedSource: ranges read ahead serve reads inside them from memory; every other
// read goes to the file, which also says where it ends.
#include "dudley/io/prefetched_source.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "dudley/core/error.hpp"
#include "test_support.hpp"

namespace dudley::io {
namespace {

using PrefetchedSourceTest = dudley::testing::TempDirTest;

std::vector<unsigned char> bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

TEST_F(PrefetchedSourceTest, ReadsInsideAKeptRangeComeFromIt) {
  const std::string path = file("f");
  std::ofstream(path) << "0123456789abcdef";
  PrefetchedSource source(open_file(path));
  // Bytes that differ from the file's show which side served a read.
  source.add(2, bytes("XYZW"));
  source.add(10, {});  // nothing kept
  char out[8] = {};
  source.read(3, 2, out);
  EXPECT_EQ(std::string(out, 2), "YZ");
  source.read(2, 4, out);
  EXPECT_EQ(std::string(out, 4), "XYZW");
  // Partly outside: the file's own bytes.
  source.read(4, 4, out);
  EXPECT_EQ(std::string(out, 4), "4567");
  EXPECT_EQ(source.read_some(10, 8, out), 6u);
  EXPECT_EQ(std::string(out, 6), "abcdef");
  EXPECT_EQ(source.size(), 16u);
  EXPECT_EQ(source.name(), path);
  EXPECT_TRUE(source.file_span());
  // Beyond the end: the file's error, naming it.
  try {
    source.read(14, 4, out, "the item");
    FAIL() << "a read beyond the end succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(PrefetchedSourceTest, AViewIsTheFilesMapping) {
  const std::string path = file("f");
  std::ofstream(path) << "0123456789";
  PrefetchedSource source(open_file(path));
  source.add(0, bytes("ZZ"));
  const unsigned char* v = source.view(4, 2);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(v), 2), "45");
}

}  // namespace
}  // namespace dudley::io
