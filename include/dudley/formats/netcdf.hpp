// netCDF classic files (CDF-1, CDF-2 "64-bit offset", CDF-5): a big-endian header naming
// dimensions, attributes and variables, then the variables at computed offsets, the record
// variables interleaved along the unlimited dimension. Read through a Dudley layout made
// from the header (docs/netcdf.md, ../shared/specs/netcdf-classic-notes.md); netCDF-4 files
// are HDF5 files (dudley/formats/hdf5.hpp).
//
// The public face of the format, shaped as every format's is (docs/development.md):
// NetcdfOpenOptions, open_netcdf and register_netcdf_format (it is read only), plus the
// layout a classic file is read with.
#pragma once

#include <optional>
#include <string>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::netcdf {

/// How netCDF classic files are read: nothing of their own yet.
struct NetcdfOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "netcdf3";
};

/// The netCDF classic file at `path` as a tree: every variable an array named as in the
/// file, with its attributes (`_FillValue` also as the model's fill value) and dimension
/// names; global attributes on the root. Throws Error(kData) naming the byte offset of what
/// is wrong in the header. `common` is accepted for the same shape as every format's open.
model::Tree open_netcdf(const std::string& path, const NetcdfOpenOptions& options = {},
                        const OpenOptions& common = {});

/// The Dudley layout the classic file at `path` is read with (fixed variables at their
/// addresses, record variables as members of one struct repeated over the records, names
/// that are no Dudley identifier respelled); nullopt when `path` is no netCDF classic file.
/// Throws Error(kData) for a classic file whose header is damaged.
std::optional<std::string> netcdf_layout_text(const std::string& path);

/// Adds the "netcdf3" format (.nc files whose header starts with CDF\1, \2 or \5).
void register_netcdf_format(FormatRegistry& registry);

}  // namespace dudley::netcdf
