// Loading dudley's own modules (dudley-hdf5.so, dudley-view.so): parts of the program kept
// apart so that the libraries they link (libhdf5's thirty, cpp-httplib's OpenSSL) are mapped
// only by the commands that use them.
#pragma once

#include <string>

namespace dudley {

/// What every module's entry point returns first: the build it comes from. A module and the
/// program loading it must come from one build (C++ types cross between them).
struct ModuleHeader {
  const char* build_tag;
};

/// Opens module `file_name`, found beside the program (the build tree), in ../lib/dudley from
/// it (an installed program) or where the Python package's build and install put it, and
/// returns what its entry point `entry` (a C function `const void* ()`) returns: a struct
/// that starts with a ModuleHeader, whose tag must be `build_tag`. The module is never
/// closed. Throws Error(kIo) naming the places tried, or the module and why, with `what`
/// ("HDF5", "viewer") saying what is missing.
const void* load_module(const char* file_name, const char* entry, const char* build_tag,
                        const std::string& what);

}  // namespace dudley
