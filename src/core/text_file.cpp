#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/io/atomic_file.hpp"

namespace dudley {

namespace {

[[noreturn]] void too_large(const std::string& path) {
  throw Error(ErrorCategory::kLimit,
              fmt::format("text file is larger than the {} MiB limit", kMaxTextFileBytes >> 20),
              Location::file(path));
}

std::string read_stream(FILE* file, const std::string& path) {
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    if (text.size() + n > kMaxTextFileBytes) too_large(path);
    text.append(buffer, n);
  }
  if (std::ferror(file)) {
    throw Error(ErrorCategory::kIo, fmt::format("read failed: {}", std::strerror(errno)),
                Location::file(path));
  }
  return text;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  if (path == "-") return read_stream(stdin, path);
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot open: {}", std::strerror(errno)),
                Location::file(path));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot stat: {}", std::strerror(errno)),
                Location::file(path));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCategory::kIo,
                fmt::format("{}, not a regular file (give '-' to read standard input)",
                            file_kind(st.st_mode)),
                Location::file(path));
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxTextFileBytes) too_large(path);
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw Error(ErrorCategory::kIo, fmt::format("read failed: {}", std::strerror(errno)),
                  Location::file(path));
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > kMaxTextFileBytes) too_large(path);  // it grew
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

const char* file_kind(unsigned mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO";
  if (S_ISCHR(mode)) return "is a character device";
  if (S_ISBLK(mode)) return "is a block device";
  if (S_ISSOCK(mode)) return "is a socket";
  if (S_ISREG(mode)) return "is a regular file";
  return "is a special file";
}

void write_file_atomically(const std::string& path, std::string_view contents, bool fsync) {
  io::AtomicFile file(path);  // the one mechanism for every output file
  file.write_at(0, contents.data(), contents.size());
  file.commit(fsync);
}

std::vector<std::byte> read_head(const std::string& path, size_t bytes) {
  std::vector<std::byte> head;
  // Opened without waiting (a FIFO put there meanwhile would block an open and a read) and
  // judged by what was opened, not by an earlier look at the name.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return head;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    head.resize(bytes);
    size_t got = 0;
    while (got < head.size()) {
      const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    head.resize(got);
  }
  ::close(fd);
  return head;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ec;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

}  // namespace dudley
