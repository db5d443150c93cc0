// storage_refusal: a dataset's external raw storage and virtual sources judged by the rule
// before any of its values is read. libhdf5 opens those files itself while reading, with no
// callback: each file it will open is worked out here as libhdf5 works it out
// (read_access.hpp), from the prefixes it reports for the open dataset, and judged.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "read_access.hpp"

namespace dudley::hdf5 {
namespace {

// Virtual datasets whose sources are virtual in turn: at most this deep (libhdf5's own
// bound on links in a path, H5L_NUM_LINKS), and at most this many sources in all.
constexpr size_t kMaxDepth = 16;
constexpr size_t kMaxSources = 65536;
// External file names longer than this are refused (libhdf5 gives no length to ask for).
constexpr size_t kMaxName = 4096;

// A string libhdf5 writes into a buffer it is given the size of, asking the size first.
template <typename Get>
std::optional<std::string> library_string(Get get) {
  const ssize_t n = get(nullptr, 0);
  if (n < 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  std::string s(static_cast<size_t>(n) + 1, '\0');
  if (get(s.data(), s.size()) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  s.resize(static_cast<size_t>(n));
  return s;
}

// H5_combine_path: a name alone when it is absolute or when there is no prefix.
std::string combine(const std::string& prefix, const std::string& name) {
  if (prefix.empty() || (!name.empty() && name.front() == '/')) return name;
  return prefix + (prefix.back() == '/' ? "" : "/") + name;
}

// Why libhdf5's external raw storage of a dataset (its creation list `dcpl`, its access
// list as opened `dapl`) may not be read: each file, prefix + name, must be a regular file
// the rule allows.
std::optional<std::string> external_files(ReadAccess& access, hid_t dcpl, hid_t dapl) {
  const int count = H5Pget_external_count(dcpl);
  if (count <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  if (access.remote) return "its values are stored in local files, named by a file read from a URL";
  const std::string prefix = library_string([&](char* out, size_t size) {
                               return H5Pget_efile_prefix(dapl, out, size);
                             }).value_or("");
  for (unsigned i = 0; i < static_cast<unsigned>(count); ++i) {
    std::vector<char> name(kMaxName + 1, '\0');
    off_t offset = 0;
    hsize_t size = 0;
    if (H5Pget_external(dcpl, i, name.size(), name.data(), &offset, &size) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return fmt::format("cannot read the name of its external storage file {}", i);
    }
    const std::string stored(name.data(), strnlen(name.data(), name.size()));
    if (stored.size() >= kMaxName)
      return fmt::format("the name of its external storage file {} has {} bytes or more", i,
                         kMaxName);
    const std::string path = combine(prefix, stored);
    const std::string what = fmt::format("its external storage {}", stored);
    if (path.empty() || path.front() != '/') {
      // No prefix: libhdf5 would read it from the current directory.
      return fmt::format("{}: libhdf5 would look for it in the current directory", what);
    }
    const io::ReadRule::Verdict verdict = access.rule.check(path);
    const char* env = std::getenv("HDF5_EXTFILE_PREFIX");
    const std::string from = env != nullptr && *env != '\0' && prefix.starts_with(env)
                                 ? fmt::format(" (from HDF5_EXTFILE_PREFIX={})", env)
                                 : std::string();
    if (verdict.outside)
      return fmt::format("outside {}: {} leads to {}{}", access.rule.describe(), what,
                         verdict.resolved, from);
    if (!verdict.ok) return fmt::format("{}: {}{} {}", what, path, from, verdict.why);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      return fmt::format("{}: {} is not a regular file", what, path);
  }
  return std::nullopt;
}

// Whether `name` is a virtual source's name libhdf5 takes as it is: "%b" (a block number)
// makes it a pattern of many files, and any other '%' is one too or an error. Such names are
// refused.
bool plain_name(const std::string& name) {
  return name.find('%') == std::string::npos;
}

// Why the object at `path` in `file` may not be a virtual source: libhdf5 follows the path
// with the read's default link access, without the rule's callback, so every link on it
// must be a hard link (at most kMaxName bytes of path, so a bounded walk).
std::optional<std::string> path_of_hard_links(hid_t file, const std::string& path) {
  if (path.size() > kMaxName) return fmt::format("a source path of {} bytes", path.size());
  std::string so_far;
  size_t at = 0;
  while (at < path.size()) {
    const size_t end = std::min(path.find('/', at), path.size());
    if (end > at) {
      so_far += "/" + path.substr(at, end - at);
      H5L_info_t info;
      if (H5Lget_info(file, so_far.c_str(), &info, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return fmt::format("{} does not exist", so_far);
      }
      if (info.type != H5L_TYPE_HARD)
        return fmt::format(
            "{} is reached through the {} link {} (libhdf5 follows a source's "
            "path without dudley's check: only hard links are followed)",
            path,
            info.type == H5L_TYPE_SOFT       ? "soft"
            : info.type == H5L_TYPE_EXTERNAL ? "external"
                                             : "user-defined",
            so_far);
    }
    at = end + 1;
  }
  return std::nullopt;
}

struct Pending {
  Handle dataset;
  size_t depth;
};

// Why the virtual dataset `ds` (creation list `dcpl`, access list as opened `dapl`) may not
// be read: each source's file is found as libhdf5 finds it and judged; each source's path
// must be hard links; each source's own external storage is judged; sources that are
// virtual in turn are queued in `pending`. Sources are opened with `list`, as libhdf5 opens
// them with a copy of the virtual dataset's access list.
std::optional<std::string> virtual_sources(ReadAccess& access, hid_t list, hid_t ds, hid_t dcpl,
                                           hid_t dapl, size_t depth, size_t& seen,
                                           std::deque<Pending>& pending) {
  size_t count = 0;
  if (H5Pget_virtual_count(dcpl, &count) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return "cannot read its virtual sources";
  }
  const std::string prefix = library_string([&](char* out, size_t size) {
                               return H5Pget_virtual_prefix(dapl, out, size);
                             }).value_or("");
  const std::string parent = file_name_of(ds);
  for (size_t i = 0; i < count; ++i) {
    if (++seen > kMaxSources) return fmt::format("more than {} virtual sources", kMaxSources);
    const auto file_name = library_string(
        [&](char* out, size_t size) { return H5Pget_virtual_filename(dcpl, i, out, size); });
    const auto path = library_string(
        [&](char* out, size_t size) { return H5Pget_virtual_dsetname(dcpl, i, out, size); });
    if (!file_name || !path) return fmt::format("cannot read its virtual source {}", i);
    const std::string source = fmt::format("{}:{}", *file_name, *path);
    const std::string what = "the virtual source " + source;
    if (!plain_name(*file_name) || !plain_name(*path))
      return fmt::format("{} names a pattern of files ('%')", what);
    Handle file;
    if (*file_name == ".") {
      file = Handle(H5Iget_file_id(ds));
    } else {
      std::string why;
      const auto found =
          find_hdf5_file(access, parent, *file_name, prefix, Search::kVirtualSource, what, why);
      if (!found) return why;
      file = Handle(H5Fopen(found->c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    }
    if (!file.valid()) {
      H5Eclear2(H5E_DEFAULT);
      return fmt::format("{}: cannot open its file", what);
    }
    if (auto why = path_of_hard_links(file.get(), *path)) return fmt::format("{}: {}", what, *why);
    // The dataset keeps its file open (libhdf5's weak close) while it is checked.
    Handle source_ds(H5Dopen2(file.get(), path->c_str(), list));
    Handle source_dcpl(source_ds.valid() ? H5Dget_create_plist(source_ds.get()) : -1);
    Handle source_dapl(source_ds.valid() ? H5Dget_access_plist(source_ds.get()) : -1);
    if (!source_dcpl.valid() || !source_dapl.valid()) {
      H5Eclear2(H5E_DEFAULT);
      return fmt::format("{} is not a dataset that can be opened", what);
    }
    if (auto why = external_files(access, source_dcpl.get(), source_dapl.get()))
      return fmt::format("{}: {}", what, *why);
    if (H5Pget_layout(source_dcpl.get()) == H5D_VIRTUAL) {
      if (depth + 1 >= kMaxDepth)
        return fmt::format("virtual sources nested more than {} deep", kMaxDepth);
      pending.push_back({std::move(source_ds), depth + 1});
    }
  }
  return std::nullopt;
}

// Why the virtual dataset `ds` may not be read: its sources, and theirs when virtual in
// turn, from a queue bounded by kMaxDepth and kMaxSources, not by recursion.
std::optional<std::string> virtual_refusal(ReadAccess& access, hid_t list, hid_t ds, hid_t dcpl,
                                           hid_t dapl) {
  std::deque<Pending> pending;
  size_t seen = 0;
  if (auto why = virtual_sources(access, list, ds, dcpl, dapl, 0, seen, pending)) return why;
  while (!pending.empty()) {
    Pending next = std::move(pending.front());
    pending.pop_front();
    Handle next_dcpl(H5Dget_create_plist(next.dataset.get()));
    Handle next_dapl(H5Dget_access_plist(next.dataset.get()));
    if (!next_dcpl.valid() || !next_dapl.valid()) {
      H5Eclear2(H5E_DEFAULT);
      return "cannot read a virtual source's properties";
    }
    if (auto why = virtual_sources(access, list, next.dataset.get(), next_dcpl.get(),
                                   next_dapl.get(), next.depth, seen, pending))
      return fmt::format("a nested virtual source: {}", *why);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> storage_refusal(ReadAccess& access, hid_t list, hid_t ds, hid_t dcpl,
                                           hid_t dapl) {
  Lock lock(library_mutex());
  std::optional<std::string> why = external_files(access, dcpl, dapl);
  if (!why && H5Pget_layout(dcpl) == H5D_VIRTUAL)
    why = virtual_refusal(access, list, ds, dcpl, dapl);
  if (why) return fmt::format("not read ({})", *why);
  return std::nullopt;
}

}  // namespace dudley::hdf5
