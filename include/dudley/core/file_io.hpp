// Whole-file reads of text inputs (layouts, YAML, JSON) with clear errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dudley {

/// Largest text file read_text_file accepts (1 GiB); a layout is never near this.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{1} << 30;

/// Reads a whole file into a string. Throws Error(kIo) naming the path and the OS reason,
/// or Error(kLimit) when the file is larger than kMaxTextFileBytes. "-" reads stdin.
std::string read_text_file(const std::string& path);

/// Writes `contents` to `path` through a temporary file in the same directory that is
/// renamed over `path` only once complete, so readers never see a half-written file and an
/// existing file survives any failure. Throws Error(kIo) naming the path.
void write_file_atomically(const std::string& path, std::string_view contents, bool fsync = false);

}  // namespace dudley
