// Random-access bytes that data is read from: a file (read with pread, memory-mapped on
// demand for zero-copy views), a caller's buffer, or a window inside another source.
// Every read is checked against the source's length first, so a size or address taken from
// a file can never read out of bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace dudley::io {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  /// Total length in bytes (a file asks the system on first use).
  virtual uint64_t size() const = 0;
  /// Name used in error messages (a path, or "<memory>").
  virtual const std::string& name() const = 0;

  /// Copies `length` bytes at `offset` into `out`. Throws Error(kData) naming the source,
  /// the offset and `what` when the range is not inside the source, or Error(kIo).
  void read(uint64_t offset, uint64_t length, void* out, const std::string& what = {}) const {
    read_checked(offset, length, out, what);
  }

  /// Reads up to `length` bytes at `offset` into `out`, fewer only where the data ends
  /// (none at or beyond the end); returns how many. Throws Error(kIo). For a file this needs
  /// no length lookup: the read itself says where the data ends.
  virtual uint64_t read_some(uint64_t offset, uint64_t length, void* out) const;

  /// Direct pointer to `length` bytes at `offset` when the source is in memory (a mapping or
  /// a buffer), valid as long as the source lives; nullptr when it is not. Checks the range
  /// like read().
  const unsigned char* view(uint64_t offset, uint64_t length, const std::string& what = {}) const;

  /// The open file holding this source's bytes and the file offset of its byte 0, so a
  /// writer can have the kernel copy them (copy_file_range) without passing them through
  /// its memory; nullopt for sources that are not one open file (a buffer, zeros).
  struct FileSpan {
    int fd = -1;
    uint64_t base = 0;
  };
  virtual std::optional<FileSpan> file_span() const { return std::nullopt; }

  /// True when [offset, offset + length) lies inside the source.
  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size() && length <= size() - offset;
  }

  /// Throws the out-of-range error read() would for this range; no-op when it is inside.
  void check_range(uint64_t offset, uint64_t length, const std::string& what) const;

 protected:
  /// read(): by default the range is checked against size(), then read. A source whose reads
  /// say where the data ends (a file) may read first and check only a read that falls short.
  virtual void read_checked(uint64_t offset, uint64_t length, void* out,
                            const std::string& what) const;
  virtual void read_unchecked(uint64_t offset, uint64_t length, void* out) const = 0;
  virtual const unsigned char* data() const { return nullptr; }
};

/// Opens a file read-only. Reads use pread; view() maps the file on first use; the length
/// is looked up on first need. Throws Error(kIo) naming the path (a directory is reported
/// when first read or measured).
std::shared_ptr<ByteSource> open_file(const std::string& path);

/// A source over `fd`, already open read-only on `path` (opened by BatchIo, say): it reads
/// and closes it as open_file's does.
std::shared_ptr<ByteSource> adopt_file(std::string path, int fd);

/// Wraps bytes the caller keeps alive for the source's lifetime.
std::shared_ptr<ByteSource> memory_source(const void* data, uint64_t size,
                                          std::string name = "<memory>");

/// `size` bytes that read as zeros and take no memory: what a writer binds its layout to
/// while planning a file that does not exist yet.
std::shared_ptr<ByteSource> zero_source(uint64_t size, std::string name = "<planned>");

/// The window [base, base + length) of another source, addressed from 0 (a Dudley file
/// embedded inside a larger file). Throws Error(kData) if the window is not inside.
std::shared_ptr<ByteSource> window(std::shared_ptr<ByteSource> parent, uint64_t base,
                                   uint64_t length);

}  // namespace dudley::io
