#include "save_destination.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <vector>

#include <sys/stat.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"

namespace dudley {
namespace {

// The bytes a format's sniff looks at.
constexpr uint64_t kHeadBytes = 4096;

[[noreturn]] void refuse(const std::string& shown, const std::string& why) {
  throw Error(ErrorCategory::kUsage,
              fmt::format("{}; this save would replace it (give --overwrite to replace it, or "
                          "choose another name)",
                          why),
              Location::file(shown));
}

// Whether the regular file at `path` is one `format` recognises (its first bytes, or for
// Dudley data the layout beside it).
bool recognised(const Format& format, const std::string& path) {
  return format.is_own_file(path, read_head(path, kHeadBytes));
}

}  // namespace

void check_replaceable(const Format& format, const std::string& path, const SaveOptions& options) {
  if (options.overwrite || format.saves_into_stores()) return;
  bool ours = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // Anything but a regular file (a directory, a device) the writers refuse themselves,
    // naming it: never replaced, --overwrite or not.
    if (!S_ISREG(st.st_mode)) return;
    if (!recognised(format, path)) {
      refuse(path, fmt::format("exists and is not a file of format '{}'", format.name()));
    }
    ours = true;
  }
  for (const WrittenFile& beside : format.outputs_besides(path, options)) {
    std::error_code ec;
    if (ours || !std::filesystem::exists(std::filesystem::symlink_status(beside.path, ec)))
      continue;
    refuse(path, fmt::format("the output's {} {} exists, and {} does not: it belongs to no "
                             "output of format '{}' here",
                             beside.role, beside.path, path, format.name()));
  }
}

void check_replaceable_in_store(const Format& format, const io::Store& store,
                                const std::string& name, const std::string& url,
                                const SaveOptions& options) {
  if (options.overwrite || format.saves_into_stores()) return;
  bool ours = false;
  if (const std::optional<uint64_t> size = store.size(name)) {
    std::vector<std::byte> head(std::min<uint64_t>(*size, kHeadBytes));
    store.read(name, 0, head.size(), head.data());
    if (!format.is_own_file(url, head)) {
      refuse(url, fmt::format("exists and is not an object of format '{}'", format.name()));
    }
    ours = true;
  }
  const std::string parent = url.substr(0, url.size() - name.size());  // ".../" before NAME
  for (const WrittenFile& beside : format.outputs_besides(url, options)) {
    if (ours || beside.path.compare(0, parent.size(), parent) != 0) continue;
    const std::string key = beside.path.substr(parent.size());
    if (!store.size(key)) continue;
    refuse(url, fmt::format("the output's {} {} exists, and {} does not: it belongs to no "
                            "output of format '{}' there",
                            beside.role, beside.path, url, format.name()));
  }
}

}  // namespace dudley
