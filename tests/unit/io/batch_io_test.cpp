// io::BatchIo: batches of opens, reads and closes give what one system call each would, on
// io_uring and on the system-call loop alike: files that open and those that do not, reads
// that end where the file does, reads of what is not a regular file, and batches larger
// than the ring.
#include "dudley/io/batch_io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace dudley::io {
namespace {

class BatchIoTest : public dudley::testing::TempDirTest,
                    public ::testing::WithParamInterface<bool> {
 protected:
  // The backend this run tests: io_uring (skipped where the kernel refuses one) or not.
  std::unique_ptr<BatchIo> make(unsigned depth) {
    const bool uring = GetParam();
    ::setenv("DUDLEY_IO_URING", uring ? "1" : "0", 1);
    std::unique_ptr<BatchIo> io = BatchIo::make(depth);
    ::unsetenv("DUDLEY_IO_URING");
    EXPECT_EQ(std::string(io->backend()), uring ? "io_uring" : "syscalls");
    return io;
  }
  void SetUp() override {
    TempDirTest::SetUp();
    if (GetParam() && !BatchIo::uses_io_uring()) GTEST_SKIP() << "no io_uring here";
  }
};

std::string bytes_named(int i) {
  return "file " + std::to_string(i) + " holds these bytes";
}

TEST_P(BatchIoTest, OpensReadsAndClosesManyFilesAtOnce) {
  // 100 files through a ring of 8: the batch goes in several submissions.
  std::vector<std::string> paths;
  for (int i = 0; i < 100; ++i) {
    paths.push_back(file("f" + std::to_string(i)));
    std::ofstream(paths.back()) << bytes_named(i);
  }
  paths.push_back(file("absent"));
  std::unique_ptr<BatchIo> io = make(8);
  std::vector<BatchOpen> opens(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) opens[i].path = paths[i].c_str();
  io->open_all(opens);
  for (int i = 0; i < 100; ++i) ASSERT_GE(opens[i].fd, 0) << paths[i] << " " << opens[i].error;
  EXPECT_EQ(opens[100].fd, -1);
  EXPECT_EQ(opens[100].error, ENOENT);

  // Each file's bytes from 5 on, asking for more than there is: the read stops at the end.
  std::vector<std::vector<char>> out(100, std::vector<char>(64, '\0'));
  std::vector<BatchRead> reads(100);
  for (int i = 0; i < 100; ++i) reads[i] = {opens[i].fd, 5, 64, out[i].data()};
  io->read_all(reads);
  for (int i = 0; i < 100; ++i) {
    const std::string want = bytes_named(i).substr(5);
    EXPECT_EQ(reads[i].error, 0);
    ASSERT_EQ(reads[i].got, want.size());
    EXPECT_EQ(std::string(out[i].data(), reads[i].got), want);
  }
  // A read at the end gives nothing, without an error.
  BatchRead at_end{opens[0].fd, 1000, 8, out[0].data()};
  io->read_all({&at_end, 1});
  EXPECT_EQ(at_end.got, 0u);
  EXPECT_EQ(at_end.error, 0);

  std::vector<int> fds;
  for (const BatchOpen& o : opens) fds.push_back(o.fd);  // -1 included: skipped
  io->close_all(fds);
  for (int i = 0; i < 100; ++i) {
    errno = 0;
    EXPECT_EQ(::fcntl(opens[i].fd, F_GETFD), -1) << "descriptor " << opens[i].fd << " still open";
    EXPECT_EQ(errno, EBADF);
  }
}

TEST_P(BatchIoTest, AReadThatFailsSaysWhy) {
  // A directory opens read-only but cannot be read.
  std::unique_ptr<BatchIo> io = make(4);
  const std::string here = dir_.string() + "/";
  BatchOpen open{here.c_str()};
  io->open_all({&open, 1});
  ASSERT_GE(open.fd, 0) << open.error;
  char buf[8];
  BatchRead read{open.fd, 0, 8, buf};
  io->read_all({&read, 1});
  EXPECT_EQ(read.error, EISDIR);
  EXPECT_EQ(read.got, 0u);
  const int fd = open.fd;
  io->close_all({&fd, 1});
}

TEST_P(BatchIoTest, FilesOfManyDirectoriesAndRelativePathsOpen) {
  // The directory kept open from one file to the next changes with the files' directories.
  for (const char* d : {"a", "b"}) std::filesystem::create_directories(dir_ / d);
  std::vector<std::string> paths = {file("a/x"), file("b/x"), file("a/y"), "/", "x-no-such"};
  for (size_t i = 0; i < 3; ++i) std::ofstream(paths[i]) << paths[i];
  std::unique_ptr<BatchIo> io = make(4);
  std::vector<BatchOpen> opens(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) opens[i].path = paths[i].c_str();
  io->open_all(opens);
  std::vector<int> fds;
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_GE(opens[i].fd, 0);
    std::vector<char> got(100);
    BatchRead r{opens[i].fd, 0, 100, got.data()};
    io->read_all({&r, 1});
    EXPECT_EQ(std::string(got.data(), r.got), paths[i]);  // each file, not its neighbour's
    fds.push_back(opens[i].fd);
  }
  EXPECT_GE(opens[3].fd, 0);  // "/" is a directory: it opens (reads then fail)
  fds.push_back(opens[3].fd);
  EXPECT_EQ(opens[4].error, ENOENT);
  io->close_all(fds);
}

INSTANTIATE_TEST_SUITE_P(Backends, BatchIoTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& backend) {
                           return backend.param ? std::string("IoUring") : std::string("Syscalls");
                         });

}  // namespace
}  // namespace dudley::io
