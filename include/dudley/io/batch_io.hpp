// Many file opens and reads in flight at once: the kernel's io_uring (through liburing) where
// it has one, one system call per operation where it does not. A family of thousands of
// small files is read in batches: all opens of a batch submitted together, then all reads.
// On a warm cache that saves the system calls; on a cold one the disk sees the whole batch
// at once instead of one request after another.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dudley::io {

/// One file to open read-only: `fd` the descriptor, or -1 with `error` the errno.
struct BatchOpen {
  const char* path = nullptr;
  int fd = -1;
  int error = 0;
};

/// One read of up to `length` bytes at `offset` of `fd` into `out`: `got` the bytes read
/// (fewer only where the file ends), or `error` the errno.
struct BatchRead {
  int fd = -1;
  uint64_t offset = 0;
  uint64_t length = 0;
  void* out = nullptr;
  uint64_t got = 0;
  int error = 0;
};

/// Submits batches of opens, reads and closes. Not thread-safe: one per thread.
class BatchIo {
 public:
  BatchIo() = default;
  virtual ~BatchIo();
  BatchIo(const BatchIo&) = delete;
  BatchIo& operator=(const BatchIo&) = delete;

  /// A batch submitter: io_uring with room for `depth` operations in flight when the kernel
  /// allows it (not when DUDLEY_IO_URING=0 is set, the kernel lacks it or a sandbox
  /// forbids it), the system-call loop otherwise. Never throws for a missing io_uring.
  static std::unique_ptr<BatchIo> make(unsigned depth);

  /// True when make() gives io_uring: the kernel gives this process one (checked once) and
  /// DUDLEY_IO_URING is not 0.
  static bool uses_io_uring();

  /// "io_uring" or "syscalls": which one this is, for benchmarks and --json reports.
  virtual const char* backend() const = 0;

  /// Opens every file (O_RDONLY | O_CLOEXEC | O_NONBLOCK, as io::open_file), filling each
  /// one's fd or error. A file is opened by its name inside its directory, kept open from
  /// the file before: the files of a family share one, whose path is then walked once.
  void open_all(std::span<BatchOpen> opens);

  /// Reads every range, filling each one's got or error.
  virtual void read_all(std::span<BatchRead> reads) = 0;

  /// Closes every descriptor that is not -1.
  virtual void close_all(std::span<const int> fds) = 0;

 protected:
  /// One open: `name` inside the directory `dir_fd` (AT_FDCWD: the working directory).
  struct OpenAt {
    int dir_fd;
    const char* name;
  };
  /// Opens opens[i] as at[i] says.
  virtual void open_at(std::span<BatchOpen> opens, std::span<const OpenAt> at) = 0;

 private:
  /// The directory `path` names its file in, opened (O_PATH) or taken from the last call,
  /// and the name inside it; AT_FDCWD and `path` when it has no directory or it cannot be
  /// opened (the open then says why). A directory replaced goes to `retired`, for the
  /// caller to close once the opens naming it are done.
  OpenAt split(const char* path, std::vector<int>& retired);

  std::string dir_;  ///< the directory last opened
  int dir_fd_ = -1;
};

}  // namespace dudley::io
