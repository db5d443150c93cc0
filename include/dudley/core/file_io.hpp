// Whole-file reads of text inputs (layouts, YAML, JSON) with clear errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dudley {

/// Largest text file read_text_file accepts (64 MiB). A layout of a million declarations is
/// about 20 MB; the text, the model built from it and its documents each hold a copy, so a
/// larger limit would let one text file ask for gigabytes.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{64} << 20;

/// Reads a whole file into a string. Throws Error(kIo) naming the path and the OS reason
/// (a FIFO, device or directory is refused without waiting on it: only "-" streams), or
/// Error(kLimit) when the file is larger than kMaxTextFileBytes. "-" reads stdin.
std::string read_text_file(const std::string& path);

/// "is a directory", "is a FIFO", "is a character device"... for a stat st_mode, to say
/// why a path is refused.
const char* file_kind(unsigned mode);

/// Writes `contents` to `path` through a temporary file in the same directory that is
/// renamed over `path` only once complete, so readers never see a half-written file and an
/// existing file survives any failure. Throws Error(kIo) naming the path.
void write_file_atomically(const std::string& path, std::string_view contents, bool fsync = false);

/// The first `bytes` bytes of the regular file at `path` (fewer when it is shorter); empty
/// when it cannot be read or is not a regular file (a FIFO is never opened). What a format's
/// sniff looks at.
std::vector<std::byte> read_head(const std::string& path, size_t bytes = 4096);

/// Whether `a` and `b` name the same file (device and inode; for paths that do not exist
/// yet, the same canonical path), so that an output never replaces an input.
bool same_file(const std::string& a, const std::string& b);

}  // namespace dudley
