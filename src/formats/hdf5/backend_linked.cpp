// The HDF5 backend linked into the program (programs using dudley_lib).
#include "backend.hpp"
#include "dudley/formats/hdf5.hpp"

namespace dudley::hdf5 {

const Backend& backend() {
  static const Backend linked{&read_hdf5_file, &write_hdf5_file};
  return linked;
}

}  // namespace dudley::hdf5
