// The half of the HDF5 format that calls the HDF5 library, behind two entry points.
//
// Programs linking dudley_lib get it linked in (backend_linked.cpp). The command-line tool
// loads it from a module, dudley-hdf5.so, the first time an HDF5 file is read or written
// (backend_loader.cpp): Debian's libhdf5 brings about 30 shared libraries (curl, TLS,
// Kerberos, LDAP), whose mapping and relocation made every command start in 8.5 ms, whatever
// the format it reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dudley/core/module_loader.hpp"
#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::hdf5 {

/// The HDF5 file at `path` as a tree (open_hdf5 of dudley/formats/hdf5.hpp, the format's
/// own options in `options.formats`).
model::Tree read_hdf5_file(const std::string& path, const OpenOptions& options);

/// Writes `tree` as the HDF5 file `path` and returns its size (write_hdf5 of
/// dudley/formats/hdf5.hpp, the format's own options in `options.formats`); its notes and
/// what a lossy save left out go to `report`.
uint64_t write_hdf5_file(const model::Tree& tree, const std::string& path,
                         const SaveOptions& options, SaveReport& report);

/// The libhdf5-calling entry points (read_hdf5_file and write_hdf5_file).
struct Backend {
  model::Tree (*open)(const std::string& path, const OpenOptions& options);
  uint64_t (*write)(const model::Tree& tree, const std::string& path, const SaveOptions& options,
                    SaveReport& report);
};

/// The backend of this program: linked in, or loaded on first use. Throws Error (kIo) naming
/// the module and why when it cannot be loaded.
const Backend& backend();

/// What a module and the program loading it must agree on: the same build of dudley
/// (the model's types cross between them). Set by the build for the two files that use it.
#ifndef DUDLEY_BUILD_TAG
#define DUDLEY_BUILD_TAG "unknown"
#endif

/// What a module's entry point returns: its build tag, checked by the loader before
/// anything else is used, and its backend.
struct ModuleEntry {
  ModuleHeader header;  ///< first, as load_module reads it
  Backend backend;
};

/// The C name a module exports its entry point under (`const void* ()`: a ModuleEntry).
inline constexpr const char* kModuleEntry = "dudley_hdf5_backend";

}  // namespace dudley::hdf5
