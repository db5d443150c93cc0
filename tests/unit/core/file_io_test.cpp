#include "dudley/core/file_io.hpp"

#include <gtest/gtest.h>
#include <sys/xattr.h>

#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

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

// A writer killed between naming its temporary and renaming it leaves NAME.tmp-PID-N: the
// next write of NAME removes it once that process is gone, and touches nothing else.
TEST(FileIo, AtomicWriteRemovesTemporariesOfDeadWriters) {
  fs::path dir = temp_dir() / "stale";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // reaped: its pid names no process now
  const fs::path dead = dir / ("out.bin.tmp-" + std::to_string(child) + "-0");
  const fs::path alive = dir / ("out.bin.tmp-" + std::to_string(::getpid()) + "-3");
  const fs::path other = dir / "out.bin.tmp-notes";
  const fs::path unrelated = dir / ("other.bin.tmp-" + std::to_string(child) + "-0");
  // A user's file with a dead writer's name, but without the mark this program's temporaries
  // carry: never taken for one.
  const fs::path users = dir / ("out.bin.tmp-" + std::to_string(child) + "-1");
  for (const fs::path& p : {dead, alive, other, unrelated, users}) std::ofstream(p) << "x";
  for (const fs::path& p : {dead, alive, other, unrelated}) {
    if (::setxattr(p.c_str(), "user.dudley.temporary", "1", 1, 0) != 0)
      GTEST_SKIP() << "this file system keeps no extended attributes (the temporaries' mark)";
  }
  write_file_atomically((dir / "out.bin").string(), "data");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_TRUE(fs::exists(users));
  char value[2];  // and what it wrote carries no mark
  EXPECT_LT(::getxattr((dir / "out.bin").c_str(), "user.dudley.temporary", value, sizeof value), 0);
}

TEST(FileIo, AtomicWriteIntoMissingDirectoryFailsCleanly) {
  EXPECT_THROW(write_file_atomically("/nonexistent/dir/out.dud", "x"), Error);
}

}  // namespace
}  // namespace dudley
