// find_hdf5_file: libhdf5's search for an external link's file or a virtual dataset's source
// (H5F_prefix_open_file, 1.10.8; read_access.hpp has the whole order), walked here first so
// that the file libhdf5 will open is judged by the rule before it is opened, and so that
// libhdf5 never reaches the two places dudley never reads from: the current directory and
// the folder of the parent's resolved name.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "read_access.hpp"

namespace dudley::hdf5 {
namespace {

// The folder libhdf5 keeps for a file it opened by `name` (H5_build_extpath): its absolute
// directory, ending with '/'; empty when the current directory cannot be told (libhdf5 then
// has none either).
std::string extpath_of(const std::string& name) {
  std::string full = name;
  if (full.empty() || full.front() != '/') {
    char cwd[1024];  // libhdf5's MAX_PATH_LEN: a longer current directory gives no extpath
    if (::getcwd(cwd, sizeof cwd) == nullptr) return {};
    const std::string dir = cwd;
    full = dir + (dir.back() == '/' ? "" : "/") + name;
  }
  return full.substr(0, full.rfind('/') + 1);
}

// H5F__build_name: the prefix, a '/' unless it ends with one, the name.
std::string build_name(const std::string& prefix, const std::string& name) {
  if (prefix.empty() || prefix.back() == '/') return prefix + name;
  return prefix + "/" + name;
}

struct Candidate {
  std::string path;
  std::string from;  ///< why libhdf5 looks there, for messages
};

// Whether libhdf5 opens `path` (a file the rule allows) as HDF5: it then stops its search
// there.
bool opens_as_hdf5(const std::string& path) {
  Lock lock(library_mutex());
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  H5Eclear2(H5E_DEFAULT);
  return file.valid();
}

}  // namespace

std::optional<std::string> find_hdf5_file(ReadAccess& access, const std::string& parent,
                                          const std::string& name, const std::string& prefix,
                                          Search search, const std::string& what,
                                          std::string& why) {
  if (access.remote) {
    why = fmt::format("{}: a file read from a URL names no local file to read", what);
    return std::nullopt;
  }
  const char* variable = search == Search::kExternalLink ? "HDF5_EXT_PREFIX" : "HDF5_VDS_PREFIX";
  const char* env = std::getenv(variable);
  const std::string ext = extpath_of(parent);
  const std::string key =
      fmt::format("{}\n{}\n{}\n{}={}", ext, name, prefix, variable, env ? env : "");
  if (auto it = access.found.find(key); it != access.found.end()) return it->second;

  std::vector<Candidate> candidates;
  std::string temp = name;
  if (!name.empty() && name.front() == '/') {
    candidates.push_back({name, "its absolute name"});
    temp = name.substr(name.rfind('/') + 1);  // libhdf5 goes on with the last component
  }
  if (env != nullptr && *env != '\0') {
    const std::string list = env;
    for (size_t at = 0; at <= list.size();) {
      const size_t colon = std::min(list.find(':', at), list.size());
      if (colon > at)
        candidates.push_back(
            {build_name(list.substr(at, colon - at), temp), fmt::format("{}={}", variable, list)});
      at = colon + 1;
    }
  }
  if (!prefix.empty()) candidates.push_back({build_name(prefix, temp), "the prefix " + prefix});
  if (!ext.empty()) candidates.push_back({ext + temp, ""});  // the parent's folder
  // libhdf5 would go on to `temp` in the current directory and to the folder of the
  // parent's resolved name: a name not found above is refused, so it never gets there.

  std::string problem;
  for (const Candidate& c : candidates) {
    struct stat st {};
    if (::stat(c.path.c_str(), &st) != 0) continue;  // libhdf5 cannot open it either
    const io::ReadRule::Verdict verdict = access.rule.check(c.path);
    if (!verdict.ok) {
      access.refusal_missing = false;
      // libhdf5 would open it if it is HDF5: it is not looked at.
      const std::string from = c.from.empty() ? "" : fmt::format(" (from {})", c.from);
      why = verdict.outside ? fmt::format("outside {}: {} leads to {}{}", access.rule.describe(),
                                          what, verdict.resolved, from)
                            : fmt::format("{}: {}{} {}", what, c.path, from, verdict.why);
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
      problem = fmt::format("{} is not a regular file", c.path);
    } else if (!opens_as_hdf5(c.path)) {
      problem = fmt::format("{} is not an HDF5 file", c.path);
    } else {
      access.found[key] = c.path;
      return c.path;
    }
  }
  access.refusal_missing = problem.empty();
  if (problem.empty()) {
    std::string looked;
    for (const Candidate& c : candidates) looked += (looked.empty() ? "" : ", ") + c.path;
    problem = fmt::format("no file {} (looked for as {})", name, looked);
  }
  // libhdf5 would look in the current directory next (for an absolute name too, by its
  // last component): never read from.
  why = fmt::format("{}: {}; the current directory is not searched", what, problem);
  return std::nullopt;
}

}  // namespace dudley::hdf5
