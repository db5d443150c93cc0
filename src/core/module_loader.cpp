// Finding and opening dudley's modules, and checking they come from this build.
#include "dudley/core/module_loader.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dudley/core/error.hpp"

// Where an installed program finds its modules, relative to its own directory (bin/):
// ../lib/dudley, whatever prefix it was installed under.
#ifndef DUDLEY_MODULE_DIR
#define DUDLEY_MODULE_DIR "../lib/dudley"
#endif

namespace dudley {
namespace {

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

std::vector<std::string> module_candidates(const char* name) {
  const std::filesystem::path self = this_object();
  if (self.empty()) return {std::string(DUDLEY_MODULE_DIR) + "/" + name};
  const std::filesystem::path dir = self.parent_path();
  std::vector<std::string> out;
  out.push_back((dir / name).string());
  out.push_back((dir / DUDLEY_MODULE_DIR / name).lexically_normal().string());
  if (dir.filename() == "dudley") {
    // The Python package: build/python/dudley/ in the build tree (the module in build/),
    // PREFIX/lib/python3.X/dist-packages/dudley/ installed (the module in PREFIX/lib/dudley/).
    out.push_back((dir / "../.." / name).lexically_normal().string());
    out.push_back((dir / "../../.." / "dudley" / name).lexically_normal().string());
  }
  return out;
}

}  // namespace

const void* load_module(const char* file_name, const char* entry, const char* build_tag,
                        const std::string& what) {
  const std::vector<std::string> candidates = module_candidates(file_name);
  for (const std::string& path : candidates) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    // Never closed: what it makes (array sources, their destructors) holds its code.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("{} support could not be loaded: {}", what, ::dlerror()),
                  Location::file(path));
    }
    auto entry_point = reinterpret_cast<const void* (*)()>(::dlsym(handle, entry));
    if (entry_point == nullptr) {
      throw Error(ErrorCategory::kIo, fmt::format("not a dudley {} module (no entry point)", what),
                  Location::file(path));
    }
    const void* found = entry_point();
    const char* tag = static_cast<const ModuleHeader*>(found)->build_tag;
    if (std::strcmp(tag, build_tag) != 0) {
      throw Error(ErrorCategory::kIo,
                  fmt::format("this {} module is from another build of dudley ({}, this "
                              "program is {}): install the two together",
                              what, tag, build_tag),
                  Location::file(path));
    }
    return found;
  }
  throw Error(ErrorCategory::kIo,
              fmt::format("{} support is not installed: its module is neither {}", what,
                          fmt::join(candidates, " nor ")));
}

}  // namespace dudley
