// Where libhdf5 finds filter plugins (LZF, LZ4, Blosc, ZFP... in Debian's plugin directory),
// so that files compressed with them read without the user setting HDF5_PLUGIN_PATH.
#pragma once

namespace dudley::hdf5 {

/// Makes Debian's filter plugins usable (once, from prepare_library): their directory is
/// searched also when HDF5_PLUGIN_PATH names others (libhdf5 then searches only those), its
/// directories that do not exist are left out (one stops libhdf5's whole search), and
/// the libraries Debian's LZF plugin expects already loaded are loaded for it.
void find_filter_plugins();

}  // namespace dudley::hdf5
