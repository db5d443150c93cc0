// The HDF5 backend loaded on first use from dudley-hdf5.so (the command-line tool and the
// Python package), found beside the program (the build tree) or in ../lib/dudley from it (an
// installed program), or where the Python package's build and install put it.
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

// The file holding this code: the program, or the shared object that links the library
// (the Python package's dudley/_native.so, loaded by an interpreter elsewhere).
std::filesystem::path this_object() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&this_object), &info) != 0 && info.dli_fname != nullptr &&
      std::strchr(info.dli_fname, '/') != nullptr) {
    std::error_code ec;
    std::filesystem::path path = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) return path;
  }
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec);
}

std::vector<std::string> module_candidates() {
  const std::filesystem::path self = this_object();
  if (self.empty()) return {std::string(DUDLEY_MODULE_DIR) + "/" + kModuleName};
  const std::filesystem::path dir = self.parent_path();
  std::vector<std::string> out;
  out.push_back((dir / kModuleName).string());
  out.push_back((dir / DUDLEY_MODULE_DIR / kModuleName).lexically_normal().string());
  if (dir.filename() == "dudley") {
    // The Python package: build/python/dudley/ in the build tree (the module in build/),
    // PREFIX/lib/python3.X/dist-packages/dudley/ installed (the module in PREFIX/lib/dudley/).
    out.push_back((dir / "../.." / kModuleName).lexically_normal().string());
    out.push_back((dir / "../../.." / "dudley" / kModuleName).lexically_normal().string());
  }
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
