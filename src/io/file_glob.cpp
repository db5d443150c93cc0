#include "dudley/io/file_glob.hpp"

#include <fnmatch.h>
#include <glob.h>

#include <algorithm>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/io/redact.hpp"

namespace dudley::io {
namespace {

// The objects of a store matching `pattern` (URL/DIR/NAME-PATTERN): the keys directly in
// DIR, listed (every page), matched by name as the shell would.
std::vector<std::string> glob_objects(const std::string& pattern, const StoreOptions& stores) {
  const size_t slash = pattern.rfind('/');
  const std::string dir = pattern.substr(0, slash);
  const std::string name = pattern.substr(slash + 1);
  if (dir.find_first_of("*?[") != std::string::npos) {
    throw Error(ErrorCategory::kUsage,
                "in a URL, only the last part of a pattern may hold wildcards "
                "(s3://bucket/run/x_*.bin)",
                Location::file(redacted_url(pattern)));
  }
  const std::shared_ptr<Store> store = open_store(dir, stores);
  std::vector<std::string> out;
  const bool listed = store->for_each_key("", [&](std::string_view key) {
    const std::string k(key);
    if (k.find('/') == std::string::npos && ::fnmatch(name.c_str(), k.c_str(), FNM_PERIOD) == 0)
      out.push_back(dir + "/" + k);
  });
  if (!listed) {
    throw Error(ErrorCategory::kUsage,
                "a web server lists nothing: name the family's members, or its index file",
                Location::file(redacted_url(pattern)));
  }
  return out;
}

}  // namespace

std::vector<std::string> glob_files(const std::string& pattern, const StoreOptions& stores) {
  std::vector<std::string> out;
  if (is_url(pattern)) {
    out = glob_objects(pattern, stores);
  } else {
    glob_t g{};
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    }
    ::globfree(&g);
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("no file matches {} (the pattern is matched in its directory: "
                            "check the directory and the name's case)",
                            redacted_url(pattern)));
  }
  return out;
}

}  // namespace dudley::io
