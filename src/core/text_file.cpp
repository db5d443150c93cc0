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
#include "dudley/io/atomic_file.hpp"

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
  io::AtomicFile file(path);  // the one mechanism for every output file
  file.write_at(0, contents.data(), contents.size());
  file.commit(fsync);
}

}  // namespace dudley
