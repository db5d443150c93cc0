// A libhdf5 virtual file driver that reads a file through dudley's byte sources, so that an
// HDF5 or netCDF-4 file in an object store or on a web server is read where it is, by
// ranges (io::open_source: small reads served from its block cache), never downloaded
// whole: listing a file reads its metadata only. Read only.
#pragma once

#include <hdf5.h>

#include <memory>

#include "dudley/io/byte_source.hpp"

namespace dudley::hdf5 {

/// A file access property list whose driver reads `source` (the caller keeps the list and
/// calls H5Fopen with it; the open file holds its own reference to `source`). Call with the
/// library's lock held.
hid_t source_access_list(const std::shared_ptr<io::ByteSource>& source);

}  // namespace dudley::hdf5
