#include "dudley/io/atomic_outputs.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "io/move_into_place.hpp"
#include "io/temporary_mark.hpp"

namespace dudley::io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw Error(ErrorCategory::kIo, fmt::format("{}: {}", what, std::strerror(error)),
              Location::file(path));
}

fs::path parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Takes flock `how` on `fd`, waiting through signals; false when it would have to wait
// (LOCK_NB) or the file system has no such locks.
bool lock(int fd, int how) {
  while (::flock(fd, how) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

// The write lock of a whole file, as lock_file takes it and file_locked asks for it.
struct flock whole_file_write_lock() {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  return fl;
}

// A temporary file is locked with an open file description lock (fcntl F_OFD_SETLK), not
// flock: libhdf5 flocks the file it writes itself, and the two kinds do not meet on Linux.
bool lock_file(int fd) {
  struct flock fl = whole_file_write_lock();
  while (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

// Whether a writer holds the lock lock_file takes on the file `fd` is open on.
bool file_locked(int fd) {
  struct flock fl = whole_file_write_lock();
  if (::fcntl(fd, F_OFD_GETLK, &fl) != 0) return true;  // cannot tell: left alone
  return fl.l_type != F_UNLCK;
}

// The parent directory of `path`, open and flocked `how` until the object goes: writers
// make and lock their siblings under a shared lock, and stale siblings are removed under an
// exclusive one, so that one just made, not yet locked, is never taken for stale.
class DirectoryLock {
 public:
  DirectoryLock(const std::string& path, int how)
      : fd_(::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0) (void)lock(fd_, how);
  }
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_;
};

// Whether `name` is a sibling make_sibling makes for `target`: ".TARGET.tmp-" or
// ".TARGET.old-" and six characters.
bool is_sibling_name(const std::string& name, const std::string& target) {
  for (const char* kind : {"tmp", "old"}) {
    const std::string lead = fmt::format(".{}.{}-", target, kind);
    if (name.size() == lead.size() + 6 && name.compare(0, lead.size(), lead) == 0) return true;
  }
  return false;
}

// Removes the hidden siblings of `path` that a writer killed before it could remove them
// left behind (a kill -9 during a conversion): a writer holds a lock on its sibling for as
// long as it runs, so one whose lock is free has no writer. Best effort, quiet: they are
// this program's own temporary files.
void remove_stale_siblings(const std::string& path) {
  const fs::path parent = parent_of(path);
  const std::string target = fs::path(path).filename().string();
  DirectoryLock exclusive(path, LOCK_EX);
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_sibling_name(name, target)) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    std::error_code e2;
    const bool directory = it->is_directory(e2);
    const bool unlocked = directory ? lock(fd, LOCK_EX | LOCK_NB) : !file_locked(fd);
    if (unlocked && marked_temporary(it->path().string())) {
      stale.push_back(it->path());
    } else if (unlocked && directory) {
      // A name alone is no proof: an unmarked folder is this program's only if left empty
      // by a writer killed between making and marking it, and rmdir removes only an empty
      // one (what anyone puts into it meanwhile stops it). An unmarked file is never
      // removed: files are marked before they are named (make_sibling).
      (void)::rmdir(it->path().c_str());
    }
    ::close(fd);
  }
  for (const fs::path& p : stale) {
    std::error_code e2;
    fs::remove_all(p, e2);
  }
}

// A name for a new sibling of `path`: ".NAME.KIND-" and six random letters and digits.
std::string sibling_name(const std::string& path, const char* kind) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char random[6];
  std::ifstream("/dev/urandom", std::ios::binary).read(reinterpret_cast<char*>(random), 6);
  std::string tail;
  for (unsigned char r : random) tail += kLetters[r % (sizeof kLetters - 1)];
  return (parent_of(path) /
          fmt::format(".{}.{}-{}", fs::path(path).filename().string(), kind, tail))
      .string();
}

// A new hidden sibling of `path`, ".NAME.KIND-" plus six random characters: a directory
// (mkdtemp), or an empty file. `held` receives a descriptor of it holding its lock (see
// remove_stale_siblings). A file is made unnamed (O_TMPFILE), marked and locked, and only
// then named: a kill at any moment leaves no unmarked file of this program's.
std::string make_sibling(const std::string& path, const char* kind, bool directory, int& held) {
  const fs::path p(path);
  const std::string pattern =
      (parent_of(path) / fmt::format(".{}.{}-XXXXXX", p.filename().string(), kind)).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  DirectoryLock shared(path, LOCK_SH);
  if (directory) {
    if (!::mkdtemp(name.data())) fail(path, "cannot create a directory beside it", errno);
    held = ::open(name.data(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (held >= 0) (void)lock(held, LOCK_EX);
    mark_temporary(held);
    return name.data();
  }
  held = ::open(parent_of(path).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (held >= 0) {
    mark_temporary(held);
    (void)lock_file(held);
    const std::string proc = fmt::format("/proc/self/fd/{}", held);
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string named = sibling_name(path, kind);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) == 0)
        return named;
      if (errno != EEXIST) break;
    }
    ::close(held);  // cannot be named: a named temporary instead
  }
  held = ::mkstemp(name.data());
  if (held < 0) fail(path, "cannot create a file beside it", errno);
  (void)lock_file(held);
  mark_temporary(held);
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
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      throw Error(ErrorCategory::kIo, "exists and is not a directory: not replaced by one",
                  Location::file(path_));
    }
    existed_ = true;
  }
  remove_stale_siblings(path_);
  staging_ = make_sibling(path_, "tmp", true, held_);
  ::chmod(staging_.c_str(), default_mode(0777));
}

AtomicDirectory::~AtomicDirectory() {
  if (!committed_) remove_tree(staging_);
  if (held_ >= 0) ::close(held_);
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
    // Nothing there: nothing that appears meanwhile is replaced (a rename would replace an
    // empty folder).
    move_into_place(staging_, path_, false);
    unmark_temporary(held_);
  } else if (!S_ISDIR(st.st_mode) || !existed_) {
    // What appeared while this was written (a file, a link, a folder) is never swapped out
    // and removed.
    throw Error(ErrorCategory::kIo,
                "appeared while this was written; not replaced (the output was not written)",
                Location::file(path_));
  } else {
    // The old store is marked before it steps aside (and unmarked if it stays): a kill while
    // it is removed leaves a temporary the next writer removes, not an output's leftovers.
    const int old_fd = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct Release {
      int fd;
      ~Release() {
        if (fd >= 0) ::close(fd);
      }
    } release_old{old_fd};
    mark_temporary(old_fd);
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE) == 0) {
      // What was swapped out must be the store marked above: anything put at DST between
      // (a file, another folder) is swapped back and left as it is.
      struct stat was {
      }, marked{};
      if (old_fd < 0 || ::lstat(staging_.c_str(), &was) != 0 || ::fstat(old_fd, &marked) != 0 ||
          was.st_dev != marked.st_dev || was.st_ino != marked.st_ino) {
        ::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, path_.c_str(), RENAME_EXCHANGE);
        unmark_temporary(old_fd);
        throw Error(ErrorCategory::kIo,
                    "changed while this was written; not replaced (the output was not written)",
                    Location::file(path_));
      }
      unmark_temporary(held_);  // in place: an output, not a temporary
      remove_tree(staging_);    // the old store, swapped out in one step
    } else {
      // No exchange on this file system: the old store steps aside, then the new one takes
      // its place; a crash between leaves the old under a hidden name, never a mix.
      int old_held = -1;
      const std::string old = make_sibling(path_, "old", true, old_held);
      struct Release release {
        old_held
      };
      if (::rename(path_.c_str(), old.c_str()) != 0) {
        const int error = errno;
        ::rmdir(old.c_str());
        unmark_temporary(old_fd);
        fail(path_, "cannot set the old directory aside", error);
      }
      if (::rename(staging_.c_str(), path_.c_str()) != 0) {
        const int error = errno;
        ::rename(old.c_str(), path_.c_str());  // put the old store back
        unmark_temporary(old_fd);
        fail(path_, "cannot move into place", error);
      }
      unmark_temporary(held_);
      remove_tree(old);
    }
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
  if (::stat(path_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      throw Error(ErrorCategory::kIo, "exists and is not a regular file: never replaced",
                  Location::file(path_));
    }
    existed_ = true;
  }
  remove_stale_siblings(path_);
  temp_ = make_sibling(path_, "tmp", false, held_);
}

NamedTempFile::~NamedTempFile() {
  if (!committed_) ::unlink(temp_.c_str());
  if (held_ >= 0) ::close(held_);
}

void NamedTempFile::commit(bool fsync) {
  struct stat st {};
  ::chmod(temp_.c_str(), ::stat(path_.c_str(), &st) == 0 ? st.st_mode & 07777 : default_mode(0666));
  if (fsync) sync_path(temp_, O_RDONLY);
  move_into_place(temp_, path_, existed_);
  // Unmarked once in place (through its descriptor): a kill before the rename leaves a
  // marked temporary the next writer removes, never an unmarked one it must leave.
  unmark_temporary(held_);
  committed_ = true;
  if (fsync) sync_parent(path_);
}

}  // namespace dudley::io
