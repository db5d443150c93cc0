// An output file that appears under its final name complete or not at all.
//
// Data goes to an unnamed file in the target's directory (O_TMPFILE; a named temporary
// where the file system lacks it). commit() gives it a temporary name and renames that over
// the target in one step, so a reader never sees a half-written file, an existing file
// survives any failure, and a crash or kill -9 before commit leaves nothing behind (with
// O_TMPFILE) or at most an ignored ".tmp-" file (without).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "dudley/io/byte_source.hpp"

namespace dudley::io {

class AtomicFile {
 public:
  /// Opens the temporary file beside `path`. A `path` that is a symbolic link is followed
  /// (unless `follow_link` is false: then the link itself is replaced): the file it points
  /// to is replaced, the link stays. A file being replaced gives the new one its permission
  /// bits. Throws Error(kIo) naming `path` when its directory is missing or not writable, or
  /// when `path` is not a regular file (a device, a FIFO, a directory: those are never
  /// replaced).
  explicit AtomicFile(std::string path, bool follow_link = true);
  /// Without commit(): the temporary file is discarded, the target untouched.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Writes `length` bytes at `offset` (pwrite; the file grows as needed). Throws
  /// Error(kIo) naming the path and offset (a full disk included).
  void write_at(uint64_t offset, const void* data, uint64_t length);
  /// Copies `length` bytes at `offset` of `source` to `at` of this file: by the kernel
  /// (copy_file_range: no pass through user memory, a reflink where the file system shares
  /// extents) when the source is an open file, through a reused buffer otherwise or where
  /// the kernel cannot. `advanced(n)` is called as each n bytes are done. Throws the
  /// source's errors for a range outside it, Error(kIo) as write_at does.
  void copy_from(const ByteSource& source, uint64_t offset, uint64_t at, uint64_t length,
                 const std::function<void(uint64_t)>& advanced = {});
  /// Sets the file's length (unwritten ranges read as zeros and take no disk space).
  void resize(uint64_t length);
  /// Makes the data durable (with `fsync`) and moves it under the final name. Where nothing
  /// was at the final name when the file was opened, something that appeared there since (a
  /// file another program wrote) is not replaced: Error(kIo) naming it.
  void commit(bool fsync = false);

  /// The final path (a symbolic link given to the constructor resolved).
  const std::string& path() const { return path_; }

  /// Commits two files as one: both are complete before either appears; holding a lock on
  /// their directory against other writers, `first` then `second` are moved into place, and
  /// if `second` cannot be, the file `first` replaced is put back. Between the two renames a
  /// reader may see the new `first` with the old `second` (and after a kill -9 there, that
  /// stays): pairs written this way carry an identifier in both (see write_pair_record), so
  /// the mismatch is detected, never read as data.
  static void commit_pair(AtomicFile& first, AtomicFile& second, bool fsync = false);

 private:
  /// Durable (with fsync), named temp_, fd_ closed; kept_ still open on it, marked.
  void stage(bool fsync);
  /// Moves temp_ to path_ (not over a file that appeared meanwhile, when none was there).
  void move_into_place();
  /// Once in place: the mark removed through kept_, which is closed.
  void unmark_in_place();
  static void sync_directory(const std::string& path);

  std::string path_;
  std::string temp_;  ///< named temporary ("" while unnamed)
  int fd_ = -1;
  /// A second descriptor of the temporary, open until it is in place: its mark is removed
  /// only then, so a kill before leaves a temporary the next writer knows as one.
  int kept_ = -1;
  bool existed_ = false;  ///< a file was at path_ when this was opened
  bool committed_ = false;
};

}  // namespace dudley::io
