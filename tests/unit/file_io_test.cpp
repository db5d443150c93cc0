#include "dudley/core/file_io.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"

namespace dudley {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("dudley_io_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(FileIo, ReadsWholeFile) {
  fs::path p = temp_dir() / "a.txt";
  std::ofstream(p) << "hello\nworld";
  EXPECT_EQ(read_text_file(p.string()), "hello\nworld");
}

TEST(FileIo, MissingFileNamesPathAndReason) {
  try {
    read_text_file("/nonexistent/dir/x.dud");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kIo);
    EXPECT_EQ(e.location().path, "/nonexistent/dir/x.dud");
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos);
  }
}

TEST(FileIo, AtomicWriteReplacesAndLeavesNoTemporaries) {
  fs::path dir = temp_dir() / "atomic";
  fs::create_directories(dir);
  fs::path p = dir / "out.dud";
  write_file_atomically(p.string(), "first");
  write_file_atomically(p.string(), "second", /*fsync=*/true);
  EXPECT_EQ(read_text_file(p.string()), "second");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(FileIo, AtomicWriteIntoMissingDirectoryFailsCleanly) {
  EXPECT_THROW(write_file_atomically("/nonexistent/dir/out.dud", "x"), Error);
}

}  // namespace
}  // namespace dudley
