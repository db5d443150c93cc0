// The HDF5 backend linked into the program (programs using dudley_lib).
#include "backend.hpp"
#include "dudley/formats/hdf5/hdf5.hpp"

namespace dudley::hdf5 {

const Backend& backend() {
  static const Backend linked{&open_hdf5, &write_hdf5};
  return linked;
}

}  // namespace dudley::hdf5
