#include "dudley/io/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::io {

namespace {

[[noreturn]] void io_error(const std::string& path, const std::string& what, int error) {
  throw Error(ErrorCategory::kIo, fmt::format("{}: {}", what, std::strerror(error)),
              Location::file(path));
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // No O_TMPFILE on this file system: a named temporary (mkostemp fills in the Xs).
    temp_ = path_ + ".tmp-XXXXXX";
    fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
    if (fd_ >= 0) ::fchmod(fd_, 0644);
  }
  if (fd_ < 0) io_error(path_, "cannot create the output file in its directory", errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::write_at(uint64_t offset, const void* data, uint64_t length) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (length > 0) {
    const ssize_t n = ::pwrite(fd_, p, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("write failed: {}", n < 0 ? std::strerror(errno) : "no progress"),
                  Location::binary(path_, offset));
    }
    p += n;
    offset += static_cast<uint64_t>(n);
    length -= static_cast<uint64_t>(n);
  }
}

void AtomicFile::resize(uint64_t length) {
  if (::ftruncate(fd_, static_cast<off_t>(length)) != 0) {
    io_error(path_, fmt::format("cannot set the length to {} bytes", length), errno);
  }
}

void AtomicFile::commit(bool fsync) {
  if (fsync && ::fsync(fd_) != 0) io_error(path_, "fsync failed", errno);
  if (temp_.empty()) {
    // Give the unnamed file a temporary name (linkat cannot replace), then rename it over
    // the target: the one step that makes it visible.
    std::string named;
    for (int attempt = 0;; ++attempt) {
      named = fmt::format("{}.tmp-{}-{}", path_, ::getpid(), attempt);
      const std::string proc = fmt::format("/proc/self/fd/{}", fd_);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        break;
      }
      if (errno != EEXIST || attempt > 100) io_error(path_, "cannot name the output file", errno);
    }
    temp_ = named;
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_error(path_, "close failed", errno);
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    io_error(path_, "rename into place failed", errno);
  committed_ = true;
  if (fsync) {
    // The rename itself is durable once the directory is.
    std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
      ::fsync(d);
      ::close(d);
    }
  }
}

}  // namespace dudley::io
