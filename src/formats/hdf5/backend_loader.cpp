// The HDF5 backend loaded on first use from dudley-hdf5.so (the command-line tool), found
// beside the program (the build tree) or in ../lib/dudley from it (an installed program).
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "backend.hpp"
#include "dudley/core/error.hpp"

// Where an installed program finds the module, relative to its own directory (bin/):
// ../lib/dudley, whatever prefix it was installed under.
#ifndef DUDLEY_MODULE_DIR
#define DUDLEY_MODULE_DIR "../lib/dudley"
#endif

namespace dudley::hdf5 {
namespace {

constexpr const char* kModuleName = "dudley-hdf5.so";

std::vector<std::string> module_candidates() {
  std::vector<std::string> out;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {std::string(DUDLEY_MODULE_DIR) + "/" + kModuleName};
  out.push_back((self.parent_path() / kModuleName).string());
  out.push_back((self.parent_path() / DUDLEY_MODULE_DIR / kModuleName).lexically_normal().string());
  return out;
}

const Backend& load() {
  const std::vector<std::string> candidates = module_candidates();
  for (const std::string& path : candidates) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    // Never closed: the trees it makes hold its code (array sources, their destructors).
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("HDF5 support could not be loaded: {}", ::dlerror()),
                  Location::file(path));
    }
    auto entry_point = reinterpret_cast<const void* (*)()>(::dlsym(handle, kModuleEntry));
    if (entry_point == nullptr) {
      throw Error(ErrorCategory::kIo, "not a dudley HDF5 module (no entry point)",
                  Location::file(path));
    }
    const auto* entry = static_cast<const ModuleEntry*>(entry_point());
    if (std::strcmp(entry->build_tag, DUDLEY_BUILD_TAG) != 0) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("this HDF5 module is from another build of dudley ({}, this "
                              "program is {}): install the two together",
                              entry->build_tag, DUDLEY_BUILD_TAG),
                  Location::file(path));
    }
    return entry->backend;
  }
  throw Error(ErrorCategory::kIo,
              fmt::format("HDF5 support is not installed: its module is neither {}",
                          fmt::join(candidates, " nor ")));
}

}  // namespace

const Backend& backend() {
  // Loaded once; a failure is reported each time HDF5 is asked for.
  static std::mutex mutex;
  static const Backend* loaded = nullptr;
  std::lock_guard lock(mutex);
  if (loaded == nullptr) loaded = &load();
  return *loaded;
}

}  // namespace dudley::hdf5
