// An output file that appears under its final name complete or not at all.
//
// Data goes to an unnamed file in the target's directory (O_TMPFILE; a named temporary
// where the file system lacks it). commit() gives it a temporary name and renames that over
// the target in one step, so a reader never sees a half-written file, an existing file
// survives any failure, and a crash or kill -9 before commit leaves nothing behind (with
// O_TMPFILE) or at most an ignored ".tmp-" file (without).
#pragma once

#include <cstdint>
#include <string>

namespace dudley::io {

class AtomicFile {
 public:
  /// Opens the temporary file beside `path`. Throws Error(kIo) naming `path` when its
  /// directory is missing or not writable.
  explicit AtomicFile(std::string path);
  /// Without commit(): the temporary file is discarded, the target untouched.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Writes `length` bytes at `offset` (pwrite; the file grows as needed). Throws
  /// Error(kIo) naming the path and offset (a full disk included).
  void write_at(uint64_t offset, const void* data, uint64_t length);
  /// Sets the file's length (unwritten ranges read as zeros and take no disk space).
  void resize(uint64_t length);
  /// Makes the data durable (with `fsync`) and moves it under the final name.
  void commit(bool fsync = false);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temp_;  ///< named temporary ("" while unnamed)
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace dudley::io
