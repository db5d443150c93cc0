// Whether an output fits on its file system, asked before it is written: a source may
// declare an array of a terabyte in a few bytes (missing chunks read as the fill value),
// and a writer that found out by filling the disk would have spent minutes and the disk.
#pragma once

#include <cstdint>
#include <string>

namespace dudley::io {

/// Refuses, before anything is written, `bytes` more of output at `path` that the file
/// system holding it has no room for: Error(kIo) naming the path, the bytes needed and the
/// bytes free to this user (statvfs's f_bavail). A file being replaced is freed only after
/// its replacement is complete, so its size does not count as free. Nothing is checked
/// where the file system does not say.
void check_room(const std::string& path, uint64_t bytes);

}  // namespace dudley::io
