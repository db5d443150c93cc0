#include "dudley/io/file_glob.hpp"

#include <glob.h>

#include <algorithm>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::io {

std::vector<std::string> glob_files(const std::string& pattern) {
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  if (out.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("no file matches {} (the pattern is matched in its directory: "
                            "check the directory and the name's case)",
                            pattern));
  }
  return out;
}

}  // namespace dudley::io
