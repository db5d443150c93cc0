#include "dudley/core/loaded_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley {

LoadedLibrary::LoadedLibrary(std::string soname, std::string purpose)
    : soname_(std::move(soname)), purpose_(std::move(purpose)) {
  handle_ = ::dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    throw Error(ErrorCategory::kIo, fmt::format("{} needs {}, which could not be loaded: {}",
                                                purpose_, soname_, why ? why : "unknown"));
  }
}

void* LoadedLibrary::symbol(const char* name) const {
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) {
    throw Error(ErrorCategory::kIo, fmt::format("{} needs {} from {}, which it does not have",
                                                purpose_, name, soname_));
  }
  return address;
}

}  // namespace dudley
