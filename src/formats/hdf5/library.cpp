#include "library.hpp"

#include <new>

#include <fmt/format.h>

#include <string_view>

#include "datatype.hpp"
#include "plugins.hpp"

namespace dudley::hdf5 {

std::recursive_mutex& library_mutex() {
  static std::recursive_mutex m;
  return m;
}

void renew_library_mutex_in_child() {
  // The copy forked from the parent is held by a thread the child does not have (a
  // recursive mutex knows its owner by thread id, which the child's one thread does not
  // share): a fresh one, unheld, in its place. Only the child's one thread runs here.
  new (&library_mutex()) std::recursive_mutex();
}

void prepare_library() {
  static std::once_flag once;
  std::call_once(once, [] {
    Lock lock(library_mutex());
    // Before any other call (which would start the library and register its exit handler):
    // libhdf5 closes at exit the files still open, and a file whose close failed (a write
    // past the file size limit, a full disk) is still open to it, in a state its exit
    // handler crashed on after the error had been reported. Every file this module opens
    // is closed by its owner; an unfinished output is a temporary file removed anyway.
    (void)H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    register_conversions();
    find_filter_plugins();
  });
}

namespace {

herr_t innermost(unsigned n, const H5E_error2_t* e, void* out) {
  // H5E_WALK_UPWARD walks the stack from the innermost call outward: the first description is the
  // library's most specific reason.
  auto* text = static_cast<std::string*>(out);
  if (n == 0 && e->desc) *text = e->desc;
  return 0;
}

}  // namespace

// The system's reason in a description of a failed write or read ("file write failed:
// time = ..., filename = './.x.h5.tmp-A1b2C3', file descriptor = 4, errno = 27, error message
// = 'File too large', buf = 0x..."): the rest names libhdf5's temporary file, descriptors
// and addresses, which mean nothing to a user.
std::string system_reason(const std::string& why) {
  static constexpr std::string_view kMark = "error message = '";
  const size_t at = why.find(kMark);
  if (at == std::string::npos) return why;
  const size_t start = at + kMark.size();
  const size_t end = why.find('\'', start);
  if (end == std::string::npos) return why;
  const size_t colon = why.find(':');
  const std::string what = colon < at ? why.substr(0, colon) : std::string("system call failed");
  return fmt::format("{}: {}", what, why.substr(start, end - start));
}

Error library_error(ErrorCategory category, const std::string& message, const std::string& path) {
  std::string why;
  {
    Lock lock(library_mutex());
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &why);
    H5Eclear2(H5E_DEFAULT);
  }
  why = system_reason(why);
  return Error(category, why.empty() ? message : fmt::format("{}: {}", message, why),
               Location::file(path));
}

void Handle::reset() {
  if (id_ >= 0) {
    Lock lock(library_mutex());
    H5Idec_ref(id_);
  }
  id_ = H5I_INVALID_HID;
}

Handle checked(hid_t id, const std::string& message, const std::string& path,
               ErrorCategory category) {
  if (id < 0) throw library_error(category, message, path);
  return Handle(id);
}

void check(herr_t status, const std::string& message, const std::string& path,
           ErrorCategory category) {
  if (status < 0) throw library_error(category, message, path);
}

}  // namespace dudley::hdf5
