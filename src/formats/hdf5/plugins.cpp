#include "plugins.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "library.hpp"

namespace dudley::hdf5 {
namespace {

// The directory Debian's libhdf5 and its filter plugin packages use (H5pubconf.h).
#ifdef H5_DEFAULT_PLUGINDIR
constexpr const char* kDebianPlugins = H5_DEFAULT_PLUGINDIR;
#else
constexpr const char* kDebianPlugins = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins";
#endif

// The directories libhdf5 searches for plugins, in order.
std::vector<std::string> search_path() {
  std::vector<std::string> dirs;
  unsigned count = 0;
  if (H5PLsize(&count) < 0) return dirs;
  for (unsigned i = 0; i < count; ++i) {
    char path[4096] = {};
    if (H5PLget(i, path, sizeof path) > 0) dirs.emplace_back(path);
  }
  return dirs;
}

}  // namespace

void find_filter_plugins() {
  Lock lock(library_mutex());
  // With HDF5_PLUGIN_PATH set (as hdf5plugin's users do), libhdf5 searches only its
  // directories: Debian's comes after them.
  if (std::getenv("HDF5_PLUGIN_PATH") != nullptr) {
    // libhdf5 1.10 ends its whole search at a directory it cannot open (a stale entry of
    // the variable): such entries are dropped, last first so that indexes stay valid.
    std::vector<std::string> dirs = search_path();
    for (size_t i = dirs.size(); i-- > 0;) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dirs[i], ec)) H5PLremove(static_cast<unsigned>(i));
    }
    dirs = search_path();
    if (std::find(dirs.begin(), dirs.end(), kDebianPlugins) == dirs.end())
      H5PLappend(kDebianPlugins);
  }
  H5Eclear2(H5E_DEFAULT);
  // Debian's hdf5-plugin-lzf (h5py's LZF filter, the most common plugin filter of h5py
  // files) is linked against neither libhdf5 nor liblzf: it resolves them from the symbols
  // loaded globally, as in a program linking both, and fails to load otherwise (h5dump too).
  // The HDF5 module is loaded privately (backend_loader.cpp): its libhdf5 is made global,
  // and liblzf loaded, when present, before any plugin is.
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&H5open), &self) != 0 && self.dli_fname != nullptr)
    ::dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  ::dlopen("liblzf.so.1", RTLD_NOW | RTLD_GLOBAL);  // absent: LZF files name the package
}

}  // namespace dudley::hdf5
