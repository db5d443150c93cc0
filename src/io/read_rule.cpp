#include "dudley/io/read_rule.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace dudley::io {
namespace {

namespace fs = std::filesystem;

// A folder as allowed: resolved when it exists (a symbolic link to a folder allows where it
// leads), else its absolute, normal spelling, which no resolved path can lie in unless the
// folder appears later.
std::string folder_of(const std::string& dir) {
  if (auto real = resolved_path(dir.empty() ? "." : dir)) return *real;
  std::error_code ec;
  std::string absolute = fs::absolute(dir, ec).lexically_normal().string();
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  return absolute;
}

}  // namespace

std::optional<std::string> resolved_path(const std::string& path) {
  if (path.empty()) return std::nullopt;
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return std::nullopt;
  return std::string(buffer);
}

ReadRule ReadRule::for_file(const std::string& named, const std::vector<std::string>& also) {
  ReadRule rule;
  rule.folders_.push_back(folder_of(fs::path(named).parent_path().string()));
  for (const std::string& dir : also) rule.folders_.push_back(folder_of(dir));
  return rule;
}

ReadRule ReadRule::for_directory(const std::string& root, const std::vector<std::string>& also) {
  ReadRule rule;
  rule.folders_.push_back(folder_of(root));
  for (const std::string& dir : also) rule.folders_.push_back(folder_of(dir));
  return rule;
}

bool ReadRule::allows(const std::string& real) const {
  for (const std::string& folder : folders_) {
    if (folder == "/") return true;
    if (real.size() >= folder.size() && real.compare(0, folder.size(), folder) == 0 &&
        (real.size() == folder.size() || real[folder.size()] == '/'))
      return true;
  }
  return false;
}

ReadRule::Verdict ReadRule::check(const std::string& path) const {
  Verdict v;
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) != nullptr) {
    v.resolved = buffer;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    // Where it would be: the part that exists resolved, links included.
    std::error_code ec;
    v.resolved = fs::weakly_canonical(fs::absolute(path, ec), ec).string();
    v.missing = true;
  } else {
    v.why = fmt::format("cannot be resolved: {}", std::strerror(errno));
    return v;
  }
  if (folders_.empty()) {
    v.outside = true;
    v.why = "no local file may be read for data that is not a local file";
  } else if (!allows(v.resolved)) {
    v.outside = true;
    v.why = fmt::format("lies outside {} (it {} {})", describe(), v.missing ? "would be" : "is",
                        v.resolved);
  } else if (v.missing) {
    v.why = "does not exist";
  }
  v.ok = v.why.empty();
  return v;
}

std::string ReadRule::describe() const {
  std::string out;
  for (const std::string& folder : folders_) out += (out.empty() ? "" : ", ") + folder;
  return out;
}

}  // namespace dudley::io
