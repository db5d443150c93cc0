#include "dudley/io/atomic_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "io/move_into_place.hpp"
#include "io/temporary_mark.hpp"

namespace dudley::io {

namespace {

[[noreturn]] void io_error(const std::string& path, const std::string& what, int error) {
  throw Error(ErrorCategory::kIo, fmt::format("{}: {}", what, std::strerror(error)),
              Location::file(path));
}

// A writer killed between naming its temporary file and renaming it (kill -9, a power cut)
// leaves NAME.tmp-PID-N (or NAME.tmp-PID- and six random characters) behind. The next write of NAME
// removes those whose process is gone; a live writer's (kill(pid, 0) succeeds or is refused) is
// left alone.
void remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = target.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // PID-N (a named unnamed file) or PID-RANDOM6 (mkostemp's): the pid in digits, then
    // letters and digits.
    const std::string rest = name.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size() || dash > 9 ||
        rest.find_first_not_of("0123456789") != dash ||
        !std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(dash) + 1, rest.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; })) {
      continue;
    }
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    // A user's file merely named so is left alone: only a marked temporary is ours.
    if (!marked_temporary(it->path().string())) continue;
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path, bool follow_link) : path_(std::move(path)) {
  // A link is followed (as editors and sed -i --follow-symlinks do): its target is the file
  // the user means, and replacing the link by a regular file would cut it off.
  std::error_code ec;
  if (follow_link && std::filesystem::is_symlink(path_, ec)) {
    const auto target = std::filesystem::read_symlink(path_, ec);
    if (!ec) {
      path_ = (target.is_absolute() ? target : std::filesystem::path(path_).parent_path() / target)
                  .lexically_normal()
                  .string();
    }
  }
  mode_t mode = 0644;
  struct stat st {};
  if ((follow_link ? ::stat(path_.c_str(), &st) : ::lstat(path_.c_str(), &st)) == 0) {
    existed_ = true;
    if (!S_ISREG(st.st_mode) && !(!follow_link && S_ISLNK(st.st_mode))) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("{}: dudley replaces only regular files", file_kind(st.st_mode)),
                  Location::file(path_));
    }
    mode = st.st_mode & 07777;  // the replaced file's permissions carry over
  }
  remove_stale_temporaries(path_);
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // No O_TMPFILE on this file system: a named temporary (mkostemp fills in the Xs).
    temp_ = fmt::format("{}.tmp-{}-XXXXXX", path_, ::getpid());  // mkostemp's template
    fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
  }
  if (fd_ < 0) io_error(path_, "cannot create the output file in its directory", errno);
  ::fchmod(fd_, mode);  // the umask does not apply to a copied mode, as with cp -p
  mark_temporary(fd_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (kept_ >= 0) ::close(kept_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::copy_from(const ByteSource& source, uint64_t offset, uint64_t at, uint64_t length,
                           const std::function<void(uint64_t)>& advanced) {
  source.check_range(offset, length, "data");
  // Steps of 64 MiB: progress moves, and a kernel copy never holds a file for long.
  constexpr uint64_t kStep = uint64_t{64} << 20;
  uint64_t done = 0;
  if (auto span = source.file_span()) {
    while (done < length) {
      auto in = static_cast<off_t>(span->base + offset + done);
      auto out = static_cast<off_t>(at + done);
      const ssize_t n = ::copy_file_range(span->fd, &in, fd_, &out,
                                          static_cast<size_t>(std::min(kStep, length - done)), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // not possible here (file systems, kernels): copied below
      done += static_cast<uint64_t>(n);
      if (advanced) advanced(static_cast<uint64_t>(n));
    }
  }
  if (done == length) return;
  constexpr uint64_t kBuffer = uint64_t{8} << 20;
  std::vector<unsigned char> buffer(std::min(kBuffer, length - done));
  while (done < length) {
    const uint64_t n = std::min<uint64_t>(buffer.size(), length - done);
    source.read(offset + done, n, buffer.data());
    write_at(at + done, buffer.data(), n);
    done += n;
    if (advanced) advanced(n);
  }
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

void AtomicFile::stage(bool fsync) {
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
  kept_ = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_error(path_, "close failed", errno);
  }
  fd_ = -1;
}

void AtomicFile::move_into_place() {
  // Nothing was there: nothing that appeared since (another program's file) is replaced.
  io::move_into_place(temp_, path_, existed_);
}

void AtomicFile::unmark_in_place() {
  // What appears is an output, not a temporary.
  unmark_temporary(kept_);
  if (kept_ >= 0) ::close(kept_);
  kept_ = -1;
}

void AtomicFile::sync_directory(const std::string& path) {
  // A rename is durable once its directory is.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

void AtomicFile::commit(bool fsync) {
  stage(fsync);
  move_into_place();
  committed_ = true;
  unmark_in_place();
  if (fsync) sync_directory(path_);
}

void AtomicFile::commit_pair(AtomicFile& first, AtomicFile& second, bool fsync) {
  first.stage(fsync);
  second.stage(fsync);
  // Another dudley writing the same pair waits here, so the last pair written is whole.
  std::filesystem::path dir = std::filesystem::path(first.path_).parent_path();
  const int lock = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0) io_error(first.path_, "cannot open the directory to lock it", errno);
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }  // closing releases the flock
  } unlock{lock};
  while (::flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) io_error(first.path_, "cannot lock the directory", errno);
  }
  // Fail before anything moves when the second cannot take its place (a directory there).
  struct stat st {};
  if (::stat(second.path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(ErrorCategory::kIo,
                fmt::format("{}: dudley replaces only regular files", file_kind(st.st_mode)),
                Location::file(second.path_));
  }
  // The first is exchanged with the file it replaces (kept under the temporary name), so it
  // can be put back if the second fails. The replaced file is marked first: a kill before
  // it is removed leaves a temporary the next writer removes.
  const int replaced =
      first.existed_ ? ::open(first.path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  struct CloseReplaced {
    int fd;
    ~CloseReplaced() {
      if (fd >= 0) ::close(fd);
    }
  } close_replaced{replaced};
  mark_temporary(replaced);
  bool exchanged = first.existed_ && ::renameat2(AT_FDCWD, first.temp_.c_str(), AT_FDCWD,
                                                 first.path_.c_str(), RENAME_EXCHANGE) == 0;
  if (!exchanged) {
    unmark_temporary(replaced);
    first.move_into_place();
  }
  try {
    second.move_into_place();
  } catch (const Error& e) {
    if (exchanged) {
      ::renameat2(AT_FDCWD, first.temp_.c_str(), AT_FDCWD, first.path_.c_str(), RENAME_EXCHANGE);
      unmark_temporary(replaced);
    } else {
      ::unlink(first.path_.c_str());  // there was no file before: there is none again
    }
    throw Error(e.category(),
                e.message() + (exchanged ? " (the old files are back)" : " (nothing replaced)"),
                e.location());
  }
  first.committed_ = second.committed_ = true;
  first.unmark_in_place();
  second.unmark_in_place();
  if (exchanged) ::unlink(first.temp_.c_str());  // the replaced file
  if (fsync) sync_directory(first.path_);
}

}  // namespace dudley::io
