#include "dudley/io/disk_room.hpp"

#include <sys/statvfs.h>

#include <filesystem>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::io {
namespace {

// "1.5 TB" for messages (decimal units, as df -H and disk vendors say them).
std::string amount(uint64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 6) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} bytes", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace

void check_room(const std::string& path, uint64_t bytes) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return;
  const uint64_t blocks = fs.f_bavail, block = fs.f_frsize;
  const uint64_t free = block != 0 && blocks > UINT64_MAX / block ? UINT64_MAX : blocks * block;
  if (bytes <= free) return;
  throw Error(ErrorCategory::kIo,
              fmt::format("the output needs {} ({} bytes) and its file system has {} free; "
                          "nothing was written",
                          amount(bytes), bytes, amount(free)),
              Location::file(path));
}

}  // namespace dudley::io
