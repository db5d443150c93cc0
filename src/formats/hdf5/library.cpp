#include "library.hpp"

#include <fmt/format.h>

#include "datatype.hpp"
#include "plugins.hpp"

namespace dudley::hdf5 {

std::recursive_mutex& library_mutex() {
  static std::recursive_mutex m;
  return m;
}

void prepare_library() {
  static std::once_flag once;
  std::call_once(once, [] {
    Lock lock(library_mutex());
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

Error library_error(ErrorCategory category, const std::string& message, const std::string& path) {
  std::string why;
  {
    Lock lock(library_mutex());
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &why);
    H5Eclear2(H5E_DEFAULT);
  }
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
