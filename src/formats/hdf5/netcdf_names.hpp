// Names netCDF-4 gives its dimensions inside HDF5, shared by the reader and the writer.
#pragma once

#include <string>
#include <string_view>

namespace dudley::hdf5 {

/// The scale name (HDF5's NAME attribute) netCDF-C gives a dimension that has no variable,
/// followed by its size in ten columns.
inline constexpr std::string_view kDimensionOnlyLabel =
    "This is a netCDF dimension but not a netCDF variable.";

/// The root attribute netCDF-C writes in a netCDF-4 file of the classic data model.
inline constexpr const char* kClassicModelMark = "_nc3_strict";

/// The prefix netCDF-C puts before a dimension's dataset name when a variable that is not
/// the dimension's coordinate has the dimension's name.
inline constexpr std::string_view kNonCoordinatePrefix = "_nc4_non_coord_";

/// Whether attribute `name` is HDF5's dimension-scale or netCDF-4's bookkeeping, whose
/// meaning the model carries as dimension names and coordinates (not as attributes).
inline bool is_bookkeeping_attribute(std::string_view name) {
  return name == "REFERENCE_LIST" || name == "DIMENSION_LIST" || name == "_Netcdf4Dimid" ||
         name == "_Netcdf4Coordinates" || name == "_NCProperties" || name == kClassicModelMark;
}

/// The dimension's name stored as the dataset `stored`: without kNonCoordinatePrefix.
inline std::string dimension_name(std::string_view stored) {
  if (stored.starts_with(kNonCoordinatePrefix) && stored.size() > kNonCoordinatePrefix.size())
    stored.remove_prefix(kNonCoordinatePrefix.size());
  return std::string(stored);
}

/// The dataset name a dimension is stored as beside a member of its own name.
inline std::string non_coordinate_name(std::string_view dimension) {
  return std::string(kNonCoordinatePrefix) + std::string(dimension);
}

}  // namespace dudley::hdf5
