// Directory stores and by-path files appear complete or not at all; old ones survive.
#include "dudley/io/atomic_outputs.hpp"

#include <gtest/gtest.h>
#include <sys/xattr.h>

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "dudley/core/error.hpp"
#include "dudley/io/atomic_file.hpp"

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

class AtomicOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dudley_outputs_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Entries of the test directory other than `keep`: temporaries left behind.
  size_t others(const std::string& keep) const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.path().filename() != keep;
    return n;
  }
  fs::path dir_;
};

TEST_F(AtomicOutputs, ANewStoreAppearsWhole) {
  const fs::path store = dir_ / "out.zarr";
  {
    AtomicDirectory d(store.string() + "/");  // a trailing slash names the same store
    EXPECT_EQ(d.path(), store.string());
    fs::create_directories(fs::path(d.staging()) / "c" / "0");
    write(fs::path(d.staging()) / "zarr.json", "{}");
    EXPECT_FALSE(fs::exists(store));  // nothing under the name until commit
    d.commit(true);
  }
  EXPECT_EQ(read(store / "zarr.json"), "{}");
  EXPECT_TRUE(fs::is_directory(store / "c" / "0"));
  EXPECT_EQ(others("out.zarr"), 0u);
  struct stat st {};
  ASSERT_EQ(::stat(store.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & 0055, 0u);  // not mkdtemp's 0700: as a plain mkdir would make it
}

TEST_F(AtomicOutputs, AnExistingStoreIsSwappedOrKept) {
  const fs::path store = dir_ / "out.zarr";
  fs::create_directories(store);
  write(store / "old.txt", "old");
  {
    AtomicDirectory d(store.string());
    write(fs::path(d.staging()) / "new.txt", "new");
    // No commit (an error, a kill): the old store is untouched, the temporary gone.
  }
  EXPECT_EQ(read(store / "old.txt"), "old");
  EXPECT_EQ(others("out.zarr"), 0u);
  {
    AtomicDirectory d(store.string());
    write(fs::path(d.staging()) / "new.txt", "new");
    d.commit();
  }
  EXPECT_EQ(read(store / "new.txt"), "new");
  EXPECT_FALSE(fs::exists(store / "old.txt"));  // the old store is replaced, not merged
  EXPECT_EQ(others("out.zarr"), 0u);
}

TEST_F(AtomicOutputs, AFileIsNeverReplacedByADirectory) {
  write(dir_ / "x.zarr", "a file");
  try {
    AtomicDirectory d((dir_ / "x.zarr").string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kIo);
    EXPECT_EQ(e.location().path, (dir_ / "x.zarr").string());
  }
  EXPECT_THROW(AtomicDirectory((dir_ / "missing" / "x.zarr").string()), Error);
}

TEST_F(AtomicOutputs, ALibraryWritesByPathThenTheFileIsRenamed) {
  const fs::path out = dir_ / "out.h5";
  write(out, "old");
  ::chmod(out.c_str(), 0640);
  {
    NamedTempFile f(out.string());
    write(f.temp_path(), "written by a library");
    EXPECT_EQ(read(out), "old");
  }
  EXPECT_EQ(read(out), "old");  // not committed: the old file stays, the temporary goes
  EXPECT_EQ(others("out.h5"), 0u);
  {
    NamedTempFile f(out.string());
    write(f.temp_path(), "new");
    f.commit(true);
  }
  EXPECT_EQ(read(out), "new");
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);  // the replaced file's permissions carry over
  // A symbolic link is followed: its target replaced, the link kept.
  fs::create_symlink("out.h5", dir_ / "link.h5");
  {
    NamedTempFile f((dir_ / "link.h5").string());
    write(f.temp_path(), "through the link");
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.h5"));
  EXPECT_EQ(read(out), "through the link");
  EXPECT_THROW(NamedTempFile(dir_.string()), Error);  // a directory is never replaced
}

TEST_F(AtomicOutputs, StaleTemporariesOfAKilledWriterAreRemovedLiveOnesKept) {
  const fs::path store = dir_ / "out.zarr";
  const fs::path file = dir_ / "out.h5";
  // What a writer killed with -9 leaves: siblings nobody holds a lock on, marked as this
  // program's temporaries (as make_sibling marks them).
  if (::setxattr(dir_.c_str(), "user.dudley.temporary", "1", 1, 0) != 0)
    GTEST_SKIP() << "this file system keeps no extended attributes (the temporaries' mark)";
  ::removexattr(dir_.c_str(), "user.dudley.temporary");
  auto mark = [](const fs::path& p) {
    ASSERT_EQ(::setxattr(p.c_str(), "user.dudley.temporary", "1", 1, 0), 0) << p;
  };
  fs::create_directories(dir_ / ".out.zarr.tmp-AbC123" / "c" / "0");
  write(dir_ / ".out.zarr.tmp-AbC123" / "c" / "0" / "0", "chunk");
  mark(dir_ / ".out.zarr.tmp-AbC123");
  fs::create_directories(dir_ / ".out.zarr.old-xyz789");
  mark(dir_ / ".out.zarr.old-xyz789");
  write(dir_ / ".out.h5.tmp-q1w2e3", "half an HDF5 file");
  mark(dir_ / ".out.h5.tmp-q1w2e3");
  // Names that only look alike, other outputs' temporaries, and a user's files that have a
  // temporary's name but not the mark, are not touched.
  fs::create_directories(dir_ / ".out.zarr.tmp-toolong1");
  fs::create_directories(dir_ / ".other.zarr.tmp-AbC123");
  mark(dir_ / ".other.zarr.tmp-AbC123");
  fs::create_directories(dir_ / ".out.zarr.tmp-QWERTY");
  write(dir_ / ".out.zarr.tmp-QWERTY" / "thesis.txt", "a user's");
  write(dir_ / ".out.h5.tmp-ABCDEF", "a user's");
  {
    // A writer at work on the same path holds its sibling's lock: it stays.
    AtomicDirectory live(store.string());
    AtomicDirectory second(store.string());
    EXPECT_TRUE(fs::exists(live.staging())) << "a live writer's staging was removed";
    EXPECT_FALSE(fs::exists(dir_ / ".out.zarr.tmp-AbC123"));
    EXPECT_FALSE(fs::exists(dir_ / ".out.zarr.old-xyz789"));
    EXPECT_TRUE(fs::exists(dir_ / ".out.zarr.tmp-toolong1"));
    EXPECT_TRUE(fs::exists(dir_ / ".other.zarr.tmp-AbC123"));
    write(fs::path(second.staging()) / "zarr.json", "{}");
    second.commit();
    EXPECT_TRUE(fs::exists(live.staging()));
  }
  {
    NamedTempFile live(file.string());
    write(live.temp_path(), "being written");
    NamedTempFile second(file.string());
    EXPECT_TRUE(fs::exists(live.temp_path())) << "a live writer's file was removed";
    EXPECT_FALSE(fs::exists(dir_ / ".out.h5.tmp-q1w2e3"));
    EXPECT_TRUE(fs::exists(dir_ / ".out.h5.tmp-ABCDEF"));  // not marked: the user's
  }
  EXPECT_EQ(others("out.zarr"), 4u);  // the two look-alikes and the user's two unmarked ones
  EXPECT_TRUE(fs::exists(dir_ / ".out.zarr.tmp-QWERTY" / "thesis.txt"));
  // What appears carries no mark of this program's.
  char value[2];
  EXPECT_LT(::getxattr(store.c_str(), "user.dudley.temporary", value, sizeof value), 0);
}

// What appears at the output's name while it is written (another program's file or folder)
// is never replaced when nothing was there at the start: the write fails naming it, and it
// stays as it was.
TEST_F(AtomicOutputs, WhatAppearedMeanwhileIsNeverReplaced) {
  const fs::path store = dir_ / "out.zarr";
  for (bool folder : {false, true}) {
    {
      AtomicDirectory d(store.string());
      write(fs::path(d.staging()) / "zarr.json", "{}");
      if (folder) {
        fs::create_directory(store);
      } else {
        write(store, "precious");
      }
      try {
        d.commit();
        ADD_FAILURE() << "replaced what appeared";
      } catch (const Error& e) {
        EXPECT_NE(e.message().find("appeared while this was written"), std::string::npos)
            << e.message();
      }
    }
    if (folder) {
      EXPECT_TRUE(fs::is_empty(store));
    } else {
      EXPECT_EQ(read(store), "precious");
    }
    EXPECT_EQ(others("out.zarr"), 0u);  // the staging folder went
    fs::remove_all(store);
  }
  const fs::path file = dir_ / "out.npy";
  {
    AtomicFile f(file.string());
    f.write_at(0, "new", 3);
    write(file, "precious");
    EXPECT_THROW(f.commit(), Error);
  }
  EXPECT_EQ(read(file), "precious");
  EXPECT_EQ(others("out.npy"), 0u);
  const fs::path h5 = dir_ / "out.h5";  // a library's output, written by path
  {
    NamedTempFile f(h5.string());
    write(f.temp_path(), "new");
    write(h5, "precious");
    EXPECT_THROW(f.commit(), Error);
  }
  EXPECT_EQ(read(h5), "precious");
  EXPECT_EQ(others("out.npy"), 1u);  // out.h5 only: no temporary left
  fs::remove(h5);
  // A file that was there at the start is replaced, and what replaces it carries no mark.
  {
    AtomicFile f(file.string());
    f.write_at(0, "new", 3);
    f.commit();
  }
  EXPECT_EQ(read(file), "new");
  char value[2];
  EXPECT_LT(::getxattr(file.c_str(), "user.dudley.temporary", value, sizeof value), 0);
}

// A writer killed between making its staging folder and marking it leaves it empty and
// unmarked: the next writer removes it (rmdir: only while empty). An unmarked file with a
// temporary's name is never removed, empty or not (files are marked before they are named).
TEST_F(AtomicOutputs, AnEmptyUnmarkedStagingFolderIsRemovedAnUnmarkedFileIsNot) {
  fs::create_directories(dir_ / ".out.zarr.tmp-Empty1");
  write(dir_ / ".out.zarr.tmp-Empty2", "");
  {
    AtomicDirectory d((dir_ / "out.zarr").string());
    EXPECT_FALSE(fs::exists(dir_ / ".out.zarr.tmp-Empty1"));
    EXPECT_TRUE(fs::exists(dir_ / ".out.zarr.tmp-Empty2"));
  }
  fs::create_directories(dir_ / ".out.h5.tmp-Empty3");
  write(dir_ / ".out.h5.tmp-Empty4", "");
  {
    NamedTempFile f((dir_ / "out.h5").string());
    EXPECT_FALSE(fs::exists(dir_ / ".out.h5.tmp-Empty3"));
    EXPECT_TRUE(fs::exists(dir_ / ".out.h5.tmp-Empty4"));
  }
}

}  // namespace
}  // namespace dudley::io
