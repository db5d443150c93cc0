#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"

namespace dudley {

std::string read_text_file(const std::string& path) {
  const bool is_stdin = path == "-";
  std::unique_ptr<FILE, int (*)(FILE*)> file(is_stdin ? stdin : std::fopen(path.c_str(), "rb"),
                                             is_stdin ? [](FILE*) { return 0; } : &std::fclose);
  if (!file) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot open: {}", std::strerror(errno)),
                Location::file(path));
  }
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    if (text.size() + n > kMaxTextFileBytes) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("text file is larger than the {} byte limit", kMaxTextFileBytes),
                  Location::file(path));
    }
    text.append(buffer, n);
  }
  if (std::ferror(file.get())) {
    throw Error(ErrorCategory::kIo, fmt::format("read failed: {}", std::strerror(errno)),
                Location::file(path));
  }
  return text;
}

void write_file_atomically(const std::string& path, std::string_view contents, bool fsync) {
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw Error(ErrorCategory::kIo,
                fmt::format("cannot create a temporary file beside it: {}", std::strerror(errno)),
                Location::file(path));
  }
  auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error(ErrorCategory::kIo, fmt::format("{}: {}", what, std::strerror(saved)),
                Location::file(path));
  };
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    written += static_cast<size_t>(n);
  }
  if (fsync && ::fsync(fd) != 0) fail("fsync failed");
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    throw Error(ErrorCategory::kIo, fmt::format("close failed: {}", std::strerror(errno)),
                Location::file(path));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    throw Error(ErrorCategory::kIo,
                fmt::format("rename into place failed: {}", std::strerror(saved)),
                Location::file(path));
  }
}

}  // namespace dudley
