// The HDF5 backend loaded on first use from dudley-hdf5.so (the command-line tool and the
// Python package), found beside the program (the build tree) or in ../lib/dudley from it (an
// installed program), or where the Python package's build and install put it.
#include <mutex>

#include "backend.hpp"
#include "dudley/core/module_loader.hpp"

namespace dudley::hdf5 {
namespace {

const Backend& load() {
  const auto* entry = static_cast<const ModuleEntry*>(
      load_module("dudley-hdf5.so", kModuleEntry, DUDLEY_BUILD_TAG, "HDF5"));
  return entry->backend;
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
