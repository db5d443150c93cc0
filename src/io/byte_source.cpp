#include "dudley/io/byte_source.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::io {

void ByteSource::check_range(uint64_t offset, uint64_t length, const std::string& what) const {
  const uint64_t total = size();
  if (offset <= total && length <= total - offset) return;
  std::string subject = what.empty() ? std::string("read") : what;
  throw Error(ErrorCategory::kData,
              fmt::format("{} of {} bytes at offset {} ends beyond the end of the data ({} bytes)",
                          subject, length, offset, total),
              Location::binary(name(), offset));
}

void ByteSource::read_checked(uint64_t offset, uint64_t length, void* out,
                              const std::string& what) const {
  check_range(offset, length, what);
  if (length > 0) read_unchecked(offset, length, out);
}

uint64_t ByteSource::read_some(uint64_t offset, uint64_t length, void* out) const {
  const uint64_t total = size();
  if (offset >= total) return 0;
  const uint64_t n = std::min(length, total - offset);
  if (n > 0) read_unchecked(offset, n, out);
  return n;
}

const unsigned char* ByteSource::view(uint64_t offset, uint64_t length,
                                      const std::string& what) const {
  check_range(offset, length, what);
  const unsigned char* base = data();
  return base ? base + offset : nullptr;
}

namespace {

class MemorySource final : public ByteSource {
 public:
  MemorySource(const void* data, uint64_t size, std::string name)
      : data_(static_cast<const unsigned char*>(data)), size_(size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }

 protected:
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override {
    std::memcpy(out, data_ + offset, length);
  }
  const unsigned char* data() const override { return data_; }

 private:
  const unsigned char* data_;
  uint64_t size_;
  std::string name_;
};

// A file read with pread (as fast as read() for bulk data, and no mapping cost for the
// small reads of a file family); mapped read-only only when a zero-copy view is asked for.
// The length is looked up only when needed: a family reader that reads one array per file
// learns where each file ends from its reads, and saves a system call per file.
class FileSource final : public ByteSource {
  // pread takes an off_t: ranges past it are checked the long way (and refused).
  static constexpr uint64_t kMaxOffset = std::numeric_limits<int64_t>::max();

 public:
  FileSource(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~FileSource() override {
    if (map_) ::munmap(const_cast<unsigned char*>(map_), size());
    ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override {
    int64_t known = size_.load(std::memory_order_relaxed);
    if (known < 0) {
      known = static_cast<int64_t>(measure());
      size_.store(known, std::memory_order_relaxed);
    }
    return static_cast<uint64_t>(known);
  }
  const std::string& name() const override { return path_; }
  std::optional<FileSpan> file_span() const override { return FileSpan{fd_, 0}; }

  uint64_t read_some(uint64_t offset, uint64_t length, void* out) const override {
    if (length >= kParallelReadFrom) return read_in_parallel(offset, length, out);
    return read_serially(offset, length, out);
  }

 private:
  // A bulk read into memory is two costs: the copy from the page cache and the kernel's
  // zeroing of each fresh page the copy lands in. One thread does both at some 7 GB/s here;
  // several reading pieces at once finish a fresh 1 GiB in 0.09 s instead of 0.16 s, and a
  // page that is slow to get (a host reclaiming a VM's memory) holds up one piece, not
  // all. Pieces go to threads of their own (not the shared pool, which may be running the
  // very caller of this read).
  static constexpr uint64_t kParallelReadFrom = uint64_t{32} << 20;
  static constexpr uint64_t kPiece = uint64_t{8} << 20;  // a multiple of the 2 MiB huge page
  static constexpr size_t kMaxReaders = 4;               // past this, the memory bus is the limit

  uint64_t read_in_parallel(uint64_t offset, uint64_t length, void* out) const {
    const size_t pieces = static_cast<size_t>((length + kPiece - 1) / kPiece);
    const size_t readers =
        std::min({kMaxReaders, dudley::ThreadPool::shared().helpers() + 1, pieces});
    if (readers < 2) return read_serially(offset, length, out);
    std::vector<uint64_t> got(pieces, 0);
    run_on_own_threads(pieces, readers, [&](size_t i) {
      const uint64_t at = i * kPiece, n = std::min(kPiece, length - at);
      got[i] = read_serially(offset + at, n, static_cast<unsigned char*>(out) + at);
    });
    // What was read in one run from `offset`: the file may end inside a piece.
    uint64_t done = 0;
    for (size_t i = 0; i < pieces; ++i) {
      done += got[i];
      if (got[i] < std::min(kPiece, length - i * kPiece)) break;
    }
    return done;
  }

  // The pread loop: up to `length` bytes, fewer only where the file ends.
  uint64_t read_serially(uint64_t offset, uint64_t length, void* out) const {
    auto* dst = static_cast<unsigned char*>(out);
    uint64_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(fd_, dst + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(offset + done, errno);
      if (n == 0) break;  // the end of the file
      done += static_cast<uint64_t>(n);
    }
    return done;
  }

 protected:
  // The read first, the file's length only when it falls short: one array read from each of
  // many files costs a pread each, not an lseek too.
  void read_checked(uint64_t offset, uint64_t length, void* out,
                    const std::string& what) const override {
    const bool measured = size_.load(std::memory_order_relaxed) >= 0;
    const bool representable = offset <= kMaxOffset && length <= kMaxOffset - offset;
    if (measured || !representable || length == 0) {
      ByteSource::read_checked(offset, length, out, what);
      return;
    }
    if (read_some(offset, length, out) == length) return;
    check_range(offset, length, what);  // throws: the data ends before the read does
    throw Error(ErrorCategory::kIo, "read failed: the file is shorter than it was",
                Location::binary(path_, offset));
  }
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override {
    if (read_some(offset, length, out) < length) {
      throw Error(ErrorCategory::kIo, "read failed: the file is shorter than it was",
                  Location::binary(path_, offset));
    }
  }
  const unsigned char* data() const override {
    if (!map_ && !map_failed_ && size() > 0) {
      void* p = ::mmap(nullptr, size(), PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) {
        map_failed_ = true;  // a pipe or special file: reads still work, views do not
      } else {
        map_ = static_cast<const unsigned char*>(p);
      }
    }
    return map_;
  }

 private:
  [[noreturn]] void fail(uint64_t offset, int error) const {
    if (error == EISDIR) {
      throw Error(ErrorCategory::kIo, "is a directory, not a data file", Location::file(path_));
    }
    if (error == ESPIPE) {  // pread on a FIFO or socket
      throw Error(ErrorCategory::kIo,
                  "is a pipe or socket, not a regular file: data is read at random places",
                  Location::file(path_));
    }
    throw Error(ErrorCategory::kIo, fmt::format("read failed: {}", std::strerror(error)),
                Location::binary(path_, offset));
  }

  // lseek costs a third of fstat (which glibc makes a path lookup); anything unusual (a
  // directory reports a huge end, a pipe cannot seek) is sorted out by fstat.
  uint64_t measure() const {
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    if (end >= 0 && end != std::numeric_limits<off_t>::max()) return static_cast<uint64_t>(end);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      throw Error(ErrorCategory::kIo, fmt::format("cannot stat: {}", std::strerror(errno)),
                  Location::file(path_));
    }
    if (S_ISDIR(st.st_mode)) fail(0, EISDIR);
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) fail(0, ESPIPE);
    return static_cast<uint64_t>(st.st_size);
  }

  std::string path_;
  int fd_;
  mutable std::atomic<int64_t> size_{-1};
  mutable const unsigned char* map_ = nullptr;
  mutable bool map_failed_ = false;
};

class ZeroSource final : public ByteSource {
 public:
  ZeroSource(uint64_t size, std::string name) : size_(size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }

 protected:
  void read_unchecked(uint64_t, uint64_t length, void* out) const override {
    std::memset(out, 0, length);
  }

 private:
  uint64_t size_;
  std::string name_;
};

class WindowSource final : public ByteSource {
 public:
  WindowSource(std::shared_ptr<ByteSource> parent, uint64_t base, uint64_t length)
      : parent_(std::move(parent)), base_(base), length_(length) {
    parent_->check_range(base, length, "window");
  }
  uint64_t size() const override { return length_; }
  const std::string& name() const override { return parent_->name(); }
  std::optional<FileSpan> file_span() const override {
    auto span = parent_->file_span();
    if (span) span->base += base_;
    return span;
  }

 protected:
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override {
    parent_->read(base_ + offset, length, out);
  }
  const unsigned char* data() const override {
    const unsigned char* p = parent_->view(base_, length_);
    return p;
  }

 private:
  std::shared_ptr<ByteSource> parent_;
  uint64_t base_;
  uint64_t length_;
};

}  // namespace

std::shared_ptr<ByteSource> open_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO with no writer would wait forever. (It changes nothing for a
  // regular file; a FIFO is then refused at its first read, which pread cannot do on it.)
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw Error(ErrorCategory::kIo, fmt::format("cannot open: {}", std::strerror(errno)),
                Location::file(path));
  }
  return std::make_shared<FileSource>(path, fd);
}

std::shared_ptr<ByteSource> adopt_file(std::string path, int fd) {
  return std::make_shared<FileSource>(std::move(path), fd);
}

std::shared_ptr<ByteSource> memory_source(const void* data, uint64_t size, std::string name) {
  return std::make_shared<MemorySource>(data, size, std::move(name));
}

std::shared_ptr<ByteSource> zero_source(uint64_t size, std::string name) {
  return std::make_shared<ZeroSource>(size, std::move(name));
}

std::shared_ptr<ByteSource> window(std::shared_ptr<ByteSource> parent, uint64_t base,
                                   uint64_t length) {
  return std::make_shared<WindowSource>(std::move(parent), base, length);
}

}  // namespace dudley::io
