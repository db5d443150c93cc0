// Calling libhdf5 safely: one lock for every call (Debian's serial library is not built
// thread-safe), handles closed by their owners, and the library's error stack turned into
// our Error naming the file and what was being done.
#pragma once

#include <hdf5.h>

#include <mutex>
#include <string>
#include <utility>

#include "dudley/core/error.hpp"

namespace dudley::hdf5 {

/// The lock every libhdf5 call in this module holds. Recursive: helpers that call the
/// library call each other.
std::recursive_mutex& library_mutex();
/// In a child process forked while the lock was held (crash_guard.cpp), before its first
/// call into the library: the lock made anew, unheld.
void renew_library_mutex_in_child();
using Lock = std::lock_guard<std::recursive_mutex>;

/// Readies the library (once): turns off its printing of its error stack (errors are thrown
/// instead), registers the type conversions the model needs (register_conversions) and
/// makes Debian's filter plugins usable (find_filter_plugins).
void prepare_library();

/// Error(category) "MESSAGE: WHAT THE LIBRARY SAID" at `path`, from the library's current
/// error stack (its innermost description).
Error library_error(ErrorCategory category, const std::string& message, const std::string& path);

/// An identifier of the library (file, group, dataset, type, space, property list,
/// attribute), closed with H5Idec_ref when the handle goes. Move-only.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

/// `id` as a handle; throws library_error(message) at `path` when the call that made it
/// failed (a negative id).
Handle checked(hid_t id, const std::string& message, const std::string& path,
               ErrorCategory category = ErrorCategory::kData);

/// Throws library_error(message) at `path` when `status` is negative.
void check(herr_t status, const std::string& message, const std::string& path,
           ErrorCategory category = ErrorCategory::kData);

}  // namespace dudley::hdf5
