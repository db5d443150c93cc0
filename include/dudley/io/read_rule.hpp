// The rule for reading: data is read from the file or store the user named and, for what
// that data names itself (an HDF5 link or external storage, a virtual dataset's sources, an
// ASDF external source, a family index's members, a Zarr store's files), only from files
// inside the named file's folder (a store: inside the store), or inside a folder the user
// allowed (--allow-outside DIR). Paths are resolved before they are judged: `..`, symbolic
// links (every one, at any depth) and absolute names all count where they really lead.
// Never the current directory, never a prefix an environment variable gives.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dudley::io {

class ReadRule {
 public:
  /// The verdict on one path: where it really leads, or why it may not be read.
  struct Verdict {
    bool ok = false;
    /// It leads outside every allowed folder (whether it exists or not).
    bool outside = false;
    /// It does not exist (and would lie inside an allowed folder).
    bool missing = false;
    /// The path with every link resolved (realpath); for a path that does not exist, its
    /// existing part resolved and the rest appended (where it would be).
    std::string resolved;
    /// Why it may not be read ("lies outside /data (it is /etc/passwd)", "does not exist");
    /// empty when ok.
    std::string why;
  };

  /// A rule allowing nothing (data at a URL: it names no local file to read).
  ReadRule() = default;
  /// The rule of data named `named`, a file: its folder (as named, resolved), plus the
  /// folders `also` (each resolved; "/" allows everything).
  static ReadRule for_file(const std::string& named, const std::vector<std::string>& also = {});
  /// The rule of a store in the directory `root`: the directory itself, plus `also`.
  static ReadRule for_directory(const std::string& root, const std::vector<std::string>& also = {});

  /// Judges `path` (relative paths are taken from the current directory, as the caller
  /// built them: join them to a folder first): its resolved path must lie in one of the
  /// allowed folders, and it must exist.
  Verdict check(const std::string& path) const;
  /// Whether the resolved path `real` lies in one of the allowed folders.
  bool allows(const std::string& real) const;
  /// The allowed folders, resolved, the data's own first.
  const std::vector<std::string>& folders() const { return folders_; }
  /// The allowed folders for messages: "/data" or "/data, /shared".
  std::string describe() const;

 private:
  std::vector<std::string> folders_;
};

/// `path` with every symbolic link, `.` and `..` resolved (realpath(3)); nullopt when it
/// does not exist or cannot be resolved.
std::optional<std::string> resolved_path(const std::string& path);

}  // namespace dudley::io
