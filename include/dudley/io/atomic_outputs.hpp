// Outputs that are not one file written by us: a directory store (Zarr), and a file that a
// library writes by path (libhdf5). Like AtomicFile, each appears under its final name
// complete or not at all, and an existing one survives any failure.
#pragma once

#include <string>

namespace dudley::io {

/// A directory built in a hidden temporary sibling (`.NAME.tmp-` and six random characters)
/// and moved into place by commit(): a new store appears whole; an existing directory is
/// swapped for the new one in one step (renameat2 RENAME_EXCHANGE; on file systems without
/// it, set aside first as `.NAME.old-` and six random characters, so a crash in between
/// leaves the old store there) and then removed. An interrupted write leaves the old store,
/// or nothing, plus at most a temporary sibling; the writer holds a lock on its sibling, and
/// the next writer of the same path removes siblings whose lock is free (their writer is
/// gone: killed, or the machine stopped).
class AtomicDirectory {
 public:
  /// Makes the temporary sibling of `path`. Throws Error(kIo) naming `path` when its parent
  /// is missing or not writable, or when `path` exists and is not a directory (a file, a
  /// device: never replaced by a directory).
  explicit AtomicDirectory(std::string path);
  /// Without commit(): the temporary directory and everything in it are removed.
  ~AtomicDirectory();
  AtomicDirectory(const AtomicDirectory&) = delete;
  AtomicDirectory& operator=(const AtomicDirectory&) = delete;

  /// Where to write the store's files now.
  const std::string& staging() const { return staging_; }
  /// The final path.
  const std::string& path() const { return path_; }
  /// Moves the staged directory into place (with `fsync`: every file and directory in it
  /// made durable first, and the parent after). Throws Error(kIo); the old store then stays.
  /// Where nothing was at `path` when this was made, anything that appeared there since (a
  /// folder or file of another program's) is never replaced: Error(kIo) naming it.
  void commit(bool fsync = false);

 private:
  std::string path_;
  std::string staging_;
  int held_ = -1;         ///< the staging directory, open, holding its lock
  bool existed_ = false;  ///< a directory was at path_ when this was made
  bool committed_ = false;
};

/// A temporary file beside `path` for a library that writes by path (libhdf5 creates and
/// closes the file itself), renamed over `path` by commit(). Like AtomicDirectory's, it is
/// locked while in use, and a stale one (its writer killed) is removed by the next writer.
class NamedTempFile {
 public:
  /// Makes an empty temporary file `.NAME.tmp-` plus six random characters beside `path` (a
  /// symbolic link `path` is followed: its target is replaced). Throws Error(kIo) naming `path`
  /// when its directory is missing or not writable, or when `path` exists and is not a regular
  /// file.
  explicit NamedTempFile(std::string path);
  /// Without commit(): the temporary file is removed.
  ~NamedTempFile();
  NamedTempFile(const NamedTempFile&) = delete;
  NamedTempFile& operator=(const NamedTempFile&) = delete;

  /// The path to give the library.
  const std::string& temp_path() const { return temp_; }
  /// The final path.
  const std::string& path() const { return path_; }
  /// Renames the written file over `path` (with `fsync`: file, then directory, durable).
  /// A file being replaced gives the new one its permission bits.
  void commit(bool fsync = false);

 private:
  std::string path_;
  std::string temp_;
  int held_ = -1;         ///< the temporary file, open, holding its lock
  bool existed_ = false;  ///< a file was at path_ when this was made
  bool committed_ = false;
};

}  // namespace dudley::io
