// External links under the rule for reading: the link access list every path is opened
// with, whose callback judges each external link's file before libhdf5 opens it (every hop:
// libhdf5 calls it for each external link a path crosses, in whichever file), and the check
// of an object's file after it was opened through links.
#include <fmt/format.h>

#include "read_access.hpp"

namespace dudley::hdf5 {
namespace {

// libhdf5's bound on the soft and external links one path may cross (H5L_NUM_LINKS).
constexpr size_t kMaxLinksFollowed = 16;

// H5Pset_elink_cb's callback: the external link from the file libhdf5 opened as `parent`
// to `child` (as stored) is followed only when find_hdf5_file finds the file libhdf5 will
// open and the rule allows it. A refusal's reason is kept for the caller.
herr_t judge_external_link(const char* parent, const char* /*group*/, const char* child,
                           const char* /*object*/, unsigned* flags, hid_t /*fapl*/, void* data) {
  auto* access = static_cast<ReadAccess*>(data);
  *flags = H5F_ACC_RDONLY;  // never opened for writing, whatever the link's list says
  std::string why;
  const std::string from = parent ? parent : "";
  const std::string to = child ? child : "";
  if (!find_hdf5_file(*access, from, to, {}, Search::kExternalLink,
                      fmt::format("the link to {} in {}", to, from), why)) {
    access->refusal = why;
    return -1;
  }
  return 0;
}

}  // namespace

Handle link_access_list(ReadAccess& access, bool external_storage) {
  Lock lock(library_mutex());
  // A dataset access list is a link access list too: one list serves H5Dopen2, H5Oopen and
  // every by-name query, and its external storage prefix travels to virtual sources (a copy
  // of the list opens them).
  Handle list(H5Pcreate(H5P_DATASET_ACCESS));
  if (!list.valid() || H5Pset_elink_cb(list.get(), judge_external_link, &access) < 0 ||
      H5Pset_nlinks(list.get(), kMaxLinksFollowed) < 0 ||
      (external_storage && H5Pset_efile_prefix(list.get(), "${ORIGIN}") < 0))
    throw library_error(ErrorCategory::kData, "cannot make a link access list", access.main_name);
  return list;
}

std::string file_name_of(hid_t object) {
  Lock lock(library_mutex());
  const ssize_t n = H5Fget_name(object, nullptr, 0);
  if (n <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return {};
  }
  std::string name(static_cast<size_t>(n) + 1, '\0');
  H5Fget_name(object, name.data(), name.size());
  name.resize(static_cast<size_t>(n));
  return name;
}

std::optional<std::string> opened_outside(const ReadAccess& access, hid_t object) {
  Lock lock(library_mutex());
  H5O_info_t info;
  if (H5Oget_info2(object, &info, H5O_INFO_BASIC) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return "cannot tell which file it lies in";
  }
  if (info.fileno == access.main_fileno) return std::nullopt;
  if (access.remote) return "it lies in a local file, named by a file read from a URL";
  const std::string name = file_name_of(object);
  const io::ReadRule::Verdict verdict = access.rule.check(name);
  if (verdict.ok) return std::nullopt;
  return fmt::format("libhdf5 opened {}, which {}", name, verdict.why);
}

}  // namespace dudley::hdf5
