#include "dudley/io/atomic_outputs.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw Error(ErrorCategory::kIo, fmt::format("{}: {}", what, std::strerror(error)),
              Location::file(path));
}

// A new hidden sibling of `path`, ".NAME.KIND-" plus six random characters (mkdtemp and
// mkstemp fill in the template's trailing "XXXXXX"): a directory, or an empty file.
std::string make_sibling(const std::string& path, const char* kind, bool directory) {
  const fs::path p(path);
  const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string pattern =
      (parent / fmt::format(".{}.{}-XXXXXX", p.filename().string(), kind)).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (directory) {
    if (!::mkdtemp(name.data())) fail(path, "cannot create a directory beside it", errno);
  } else {
    const int fd = ::mkstemp(name.data());
    if (fd < 0) fail(path, "cannot create a file beside it", errno);
    ::close(fd);
  }
  return name.data();
}

void sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open to sync", errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) fail(path, "cannot make durable", error);
}

void sync_parent(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  sync_path(parent.empty() ? "." : parent.string(), O_RDONLY | O_DIRECTORY);
}

// What a file or directory created plainly would get (mkstemp and mkdtemp give 0600 / 0700).
mode_t default_mode(mode_t base) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return base & ~mask;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);  // best effort: what is left is a hidden temporary sibling
}

}  // namespace

AtomicDirectory::AtomicDirectory(std::string path) : path_(std::move(path)) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();  // "out.zarr/" is out.zarr
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    throw Error(ErrorCategory::kIo, "exists and is not a directory: not replaced by one",
                Location::file(path_));
  }
  staging_ = make_sibling(path_, "tmp", true);
  ::chmod(staging_.c_str(), default_mode(0777));
}

AtomicDirectory::~AtomicDirectory() {
  if (!committed_) remove_tree(staging_);
}

void AtomicDirectory::commit(bool fsync) {
  if (fsync) {
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(staging_, ec)) {
      sync_path(entry.path().string(), entry.is_directory() ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    }
    sync_path(staging_, O_RDONLY | O_DIRECTORY);
  }
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0) {
    if (::rename(staging_.c_str(), path_.c_str()) != 0)
      fail(path_, "cannot move into place", errno);
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) ==
             0) {
    remove_tree(staging_);  // the old store, swapped out in one step
  } else {
    // No exchange on this file system: the old store steps aside, then the new one takes
    // its place; a crash between leaves the old under a hidden name, never a mix.
    const std::string old = make_sibling(path_, "old", true);
    if (::rename(path_.c_str(), old.c_str()) != 0) {
      const int error = errno;
      ::rmdir(old.c_str());
      fail(path_, "cannot set the old directory aside", error);
    }
    if (::rename(staging_.c_str(), path_.c_str()) != 0) {
      const int error = errno;
      ::rename(old.c_str(), path_.c_str());  // put the old store back
      fail(path_, "cannot move into place", error);
    }
    remove_tree(old);
  }
  committed_ = true;
  if (fsync) sync_parent(path_);
}

NamedTempFile::NamedTempFile(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (fs::is_symlink(path_, ec)) {
    const fs::path target = fs::read_symlink(path_, ec);
    if (!ec)
      path_ = (target.is_absolute() ? target : fs::path(path_).parent_path() / target).string();
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(ErrorCategory::kIo, "exists and is not a regular file: never replaced",
                Location::file(path_));
  }
  temp_ = make_sibling(path_, "tmp", false);
}

NamedTempFile::~NamedTempFile() {
  if (!committed_) ::unlink(temp_.c_str());
}

void NamedTempFile::commit(bool fsync) {
  struct stat st {};
  ::chmod(temp_.c_str(), ::stat(path_.c_str(), &st) == 0 ? st.st_mode & 07777 : default_mode(0666));
  if (fsync) sync_path(temp_, O_RDONLY);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail(path_, "cannot move into place", errno);
  committed_ = true;
  if (fsync) sync_parent(path_);
}

}  // namespace dudley::io
