#include "dudley/io/batch_io.hpp"

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace dudley::io {

namespace {

constexpr int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;

// The rest of a read the kernel ended early (a signal, a huge length), with pread: up to
// `read.length` bytes in all, fewer only where the file ends.
void finish_read(BatchRead& read) {
  auto* out = static_cast<unsigned char*>(read.out);
  while (read.got < read.length) {
    const ssize_t n = ::pread(read.fd, out + read.got, read.length - read.got,
                              static_cast<off_t>(read.offset + read.got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      read.error = errno;
      return;
    }
    if (n == 0) return;  // the end of the file
    read.got += static_cast<uint64_t>(n);
  }
}

// A ring of `entries`, with the flags that make a ring used by one thread cheaper where the
// kernel knows them (6.0 and later), without them where it does not. Returns -errno.
int make_ring(unsigned entries, io_uring& ring) {
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
  int ret = io_uring_queue_init_params(entries, &ring, &params);
  if (ret == -EINVAL) {
    params = {};
    ret = io_uring_queue_init_params(entries, &ring, &params);
  }
  return ret;
}

// One system call per operation: where io_uring is missing, and the reference the io_uring
// path is tested against.
class SyscallBatchIo final : public BatchIo {
 public:
  const char* backend() const override { return "syscalls"; }
  void open_at(std::span<BatchOpen> opens, std::span<const OpenAt> at) override {
    for (size_t i = 0; i < opens.size(); ++i) {
      opens[i].fd = ::openat(at[i].dir_fd, at[i].name, kOpenFlags);
      opens[i].error = opens[i].fd < 0 ? errno : 0;
    }
  }
  void read_all(std::span<BatchRead> reads) override {
    for (BatchRead& r : reads) {
      r.got = 0;
      r.error = 0;
      finish_read(r);
    }
  }
  void close_all(std::span<const int> fds) override {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
};

// Every operation of a batch submitted with one system call, the completions reaped together.
class UringBatchIo final : public BatchIo {
 public:
  // The ring is made in place: liburing's handle is not meant to be copied.
  static std::unique_ptr<UringBatchIo> make(unsigned entries) {
    auto io = std::unique_ptr<UringBatchIo>(new UringBatchIo(entries));
    if (make_ring(entries, io->ring_) != 0) return nullptr;
    io->ready_ = true;
    return io;
  }
  ~UringBatchIo() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }
  UringBatchIo(const UringBatchIo&) = delete;
  UringBatchIo& operator=(const UringBatchIo&) = delete;

  const char* backend() const override { return "io_uring"; }

  void open_at(std::span<BatchOpen> opens, std::span<const OpenAt> at) override {
    run(
        opens.size(),
        [&](size_t i, io_uring_sqe* sqe) {
          io_uring_prep_openat(sqe, at[i].dir_fd, at[i].name, kOpenFlags, 0);
        },
        [&](size_t i, int res) {
          opens[i].fd = res >= 0 ? res : -1;
          opens[i].error = res >= 0 ? 0 : -res;
        });
    // A batch that could not be submitted at all is opened the plain way.
    for (size_t i = 0; i < opens.size(); ++i) {
      if (opens[i].fd < 0 && opens[i].error == kNotRun) {
        opens[i].fd = ::openat(at[i].dir_fd, at[i].name, kOpenFlags);
        opens[i].error = opens[i].fd < 0 ? errno : 0;
      }
    }
  }

  void read_all(std::span<BatchRead> reads) override {
    // io_uring takes a 32-bit length; a longer read goes by pread.
    constexpr uint64_t kMaxOne = uint64_t{1} << 30;
    for (BatchRead& r : reads) r.got = 0, r.error = 0;
    run(
        reads.size(),
        [&](size_t i, io_uring_sqe* sqe) {
          const BatchRead& r = reads[i];
          io_uring_prep_read(sqe, r.fd, r.out, static_cast<unsigned>(std::min(r.length, kMaxOne)),
                             r.offset);
        },
        [&](size_t i, int res) {
          if (res >= 0) {
            reads[i].got = static_cast<uint64_t>(res);
          } else {
            reads[i].error = -res;
          }
        });
    for (BatchRead& r : reads) {
      // Not submitted, interrupted or cut short (a partial read is not the file's end: that
      // is a read of 0 bytes): the rest by pread, which says where the file ends.
      const bool retry = r.error == kNotRun || r.error == EINTR || r.error == EAGAIN;
      if (retry || (r.error == 0 && r.got > 0 && r.got < r.length)) {
        if (retry) r.got = 0, r.error = 0;
        finish_read(r);
      }
    }
  }

  void close_all(std::span<const int> fds) override {
    std::vector<int> open;
    for (int fd : fds) {
      if (fd >= 0) open.push_back(fd);
    }
    std::vector<int> failed;
    run(
        open.size(), [&](size_t i, io_uring_sqe* sqe) { io_uring_prep_close(sqe, open[i]); },
        [&](size_t i, int res) {
          if (res == -kNotRun) failed.push_back(open[i]);
        });
    for (int fd : failed) ::close(fd);
  }

 private:
  explicit UringBatchIo(unsigned entries) : entries_(entries) {}

  // Marks an operation whose submission failed: the caller redoes it with a system call.
  static constexpr int kNotRun = std::numeric_limits<int>::max();

  // Prepares operations 0 .. count - 1 (as many at a time as the ring holds), submits them
  // and hands each completion to `done` with its result (-errno on failure). An operation
  // that could not be submitted gets -kNotRun.
  template <class Prepare, class Done>
  void run(size_t count, Prepare prepare, Done done) {
    for (size_t first = 0; first < count; first += entries_) {
      const size_t n = std::min<size_t>(entries_, count - first);
      size_t prepared = 0;
      for (; prepared < n; ++prepared) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
        if (sqe == nullptr) break;
        prepare(first + prepared, sqe);
        io_uring_sqe_set_data64(sqe, first + prepared);
      }
      size_t submitted = 0;
      while (submitted < prepared) {
        const int ret = io_uring_submit(&ring_);
        if (ret == -EINTR || ret == -EAGAIN) continue;
        if (ret <= 0) break;
        submitted += static_cast<size_t>(ret);
      }
      if (submitted < prepared) {
        // Whatever stayed in the submission queue must not run later, on a reused buffer:
        // a ring that failed to submit is not used again.
        broken_ = true;
      }
      for (size_t reaped = 0; reaped < submitted;) {
        io_uring_cqe* cqe = nullptr;
        const int ret = io_uring_wait_cqe(&ring_, &cqe);
        if (ret == -EINTR) continue;
        if (ret < 0) std::abort();  // the kernel lost completions it owes: nothing sane is left
        done(static_cast<size_t>(io_uring_cqe_get_data64(cqe)), cqe->res);
        io_uring_cqe_seen(&ring_, cqe);
        ++reaped;
      }
      for (size_t i = submitted; i < n; ++i) done(first + i, -kNotRun);
      if (broken_) {
        for (size_t i = first + n; i < count; ++i) done(i, -kNotRun);
        return;
      }
    }
  }

  io_uring ring_{};
  unsigned entries_;
  bool ready_ = false;
  bool broken_ = false;
};

bool io_uring_wanted() {
  const char* setting = std::getenv("DUDLEY_IO_URING");
  return setting == nullptr || std::strcmp(setting, "0") != 0;
}

}  // namespace

BatchIo::~BatchIo() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

BatchIo::OpenAt BatchIo::split(const char* path, std::vector<int>& retired) {
  const char* slash = std::strrchr(path, '/');
  if (slash == nullptr || slash[1] == '\0') return {AT_FDCWD, path};
  const size_t length = slash == path ? 1 : static_cast<size_t>(slash - path);
  if (dir_fd_ < 0 || dir_.size() != length || dir_.compare(0, length, path, length) != 0) {
    // Earlier opens of this batch may still name the old directory: it stays open until
    // they are done (its number must not be reused for the new one meanwhile).
    if (dir_fd_ >= 0) retired.push_back(dir_fd_);
    dir_.assign(path, length);
    dir_fd_ = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (dir_fd_ < 0) return {AT_FDCWD, path};
  return {dir_fd_, slash + 1};
}

void BatchIo::open_all(std::span<BatchOpen> opens) {
  std::vector<OpenAt> at;
  std::vector<int> retired;
  at.reserve(opens.size());
  for (const BatchOpen& o : opens) at.push_back(split(o.path, retired));
  open_at(opens, at);
  for (int fd : retired) ::close(fd);
}

bool BatchIo::uses_io_uring() {
  static const bool available = [] {
    io_uring ring{};
    if (make_ring(4, ring) < 0) return false;  // ENOSYS, EPERM (io_uring_disabled, seccomp)
    io_uring_queue_exit(&ring);
    return true;
  }();
  return available && io_uring_wanted();
}

std::unique_ptr<BatchIo> BatchIo::make(unsigned depth) {
  if (uses_io_uring()) {
    if (auto io = UringBatchIo::make(std::clamp(depth, 1U, 256U))) return io;
  }
  return std::make_unique<SyscallBatchIo>();
}

}  // namespace dudley::io
