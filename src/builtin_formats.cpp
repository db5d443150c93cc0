// The formats compiled into this build, registered in one place.
#include "dudley/format.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/formats/netcdf.hpp"
#include "dudley/formats/npy.hpp"
#ifdef DUDLEY_WITH_ASDF
#include "dudley/formats/asdf.hpp"
#endif
#ifdef DUDLEY_WITH_ZARR
#include "dudley/formats/zarr.hpp"
#endif
#ifdef DUDLEY_WITH_AVRO
#include "dudley/formats/avro.hpp"
#endif
#ifdef DUDLEY_WITH_NDL
#include "dudley/formats/ndl.hpp"
#endif
#ifdef DUDLEY_WITH_HDF5
#include "dudley/formats/hdf5.hpp"
#endif

namespace dudley {

const FormatRegistry& FormatRegistry::builtin() {
  static const FormatRegistry registry = [] {
    FormatRegistry r;
    register_builtin_formats(r);
    return r;
  }();
  return registry;
}

void register_builtin_formats(FormatRegistry& registry) {
  // Explicit calls, not static initialisers: a static library drops objects nothing
  // refers to, and with them any self-registration.
  // Formats with a signature come first: Dudley data has none and is recognised by a
  // layout beside it, which x.asdf may have too (x.dud of an earlier conversion).
#ifdef DUDLEY_WITH_ASDF
  asdf::register_asdf_format(registry);
#endif
#ifdef DUDLEY_WITH_ZARR
  zarr::register_zarr_format(registry);
#endif
#ifdef DUDLEY_WITH_AVRO
  avro::register_avro_format(registry);
#endif
#ifdef DUDLEY_WITH_HDF5
  hdf5::register_hdf5_format(registry);
#endif
  npy::register_npy_format(registry);
  netcdf::register_netcdf_format(registry);
#ifdef DUDLEY_WITH_NDL
  ndl::register_ndl_format(registry);  // no signature: found by extension
#endif
  layout::register_dudley_format(registry);
}

}  // namespace dudley
