#include "chunk_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/io/atomic_outputs.hpp"

namespace dudley::zarr {

namespace fs = std::filesystem;

void write_file(const std::string& path, const void* data, size_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot create: {}", std::strerror(errno)),
                Location::file(path));
  }
  const auto* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw Error(ErrorCategory::kIo, fmt::format("cannot write: {}", std::strerror(e)),
                  Location::file(path));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot write: {}", std::strerror(errno)),
                Location::file(path));
  }
}

void write_chunk(const std::string& path, const codec::Bytes& bytes) {
  try {
    write_file(path, bytes.data(), bytes.size());
  } catch (const Error&) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    write_file(path, bytes.data(), bytes.size());
  }
}

void replace_chunk(const std::string& path, const codec::Bytes& bytes) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  io::NamedTempFile file(path);
  write_file(file.temp_path(), bytes.data(), bytes.size());
  file.commit();
}

void remove_chunk(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot remove: {}", std::strerror(errno)),
                Location::file(path));
  }
}

}  // namespace dudley::zarr
