// The entry point of the module dudley-hdf5.so, which the command-line tool loads the first
// time it meets an HDF5 file (backend_loader.cpp).
#include "backend.hpp"
#include "dudley/formats/hdf5.hpp"

namespace {

const dudley::hdf5::ModuleEntry kEntry{
    {DUDLEY_BUILD_TAG}, {&dudley::hdf5::read_hdf5_file, &dudley::hdf5::write_hdf5_file}};

}  // namespace

/// The module's ModuleEntry.
extern "C" __attribute__((visibility("default"))) const void* dudley_hdf5_backend() {
  return &kEntry;
}
