// HDF5 through the HDF5 C library: files read into the model (groups, datasets, attributes,
// every datatype NDL can state, dimension scales, chunking and filters, fill values,
// unlimited dimensions, hyperslab reads) and written from it.
//
// The public face of the format, shaped as every format's is (docs/development.md):
// Hdf5OpenOptions, Hdf5SaveOptions, open_hdf5, write_hdf5 and register_hdf5_format.
#pragma once

#include <string>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::hdf5 {

/// The file's first eight bytes (at offset 0, or 512, 1024... after a user block).
inline constexpr char kSignature[] = "\x89HDF\r\n\x1a\n";

/// How HDF5 files are read: nothing of HDF5's own yet (the format-neutral OpenOptions say
/// which paths are wanted and whether extent offsets are asked for).
struct Hdf5OpenOptions : FormatOptions {
  static constexpr const char* kFormat = "hdf5";
};

/// How HDF5 files are written.
struct Hdf5SaveOptions : FormatOptions {
  static constexpr const char* kFormat = "hdf5";
  /// Compress chunked datasets with deflate at this level (0: the source's filters, when
  /// HDF5 has them, else none).
  unsigned deflate = 0;
  /// Byte-shuffle before deflate.
  bool shuffle = false;
};

/// The HDF5 file at `path` as a model tree. Datasets read on demand; attributes are read
/// now. What the model has no place for (soft and external links, committed types, a second
/// hard link to an object) is listed in the tree's `skipped`. `common.wanted` limits the
/// groups walked, `common.extent_offsets` asks for contiguous datasets' file offsets.
/// Throws Error(kData) naming the file for one that is not HDF5 or is damaged where the
/// root group is; a damaged dataset becomes a node with its error. Throws Error(kIo) when
/// the HDF5 module of the command-line tool cannot be loaded.
model::Tree open_hdf5(const std::string& path, const Hdf5OpenOptions& options = {},
                      const OpenOptions& common = {});

/// Writes `tree` as an HDF5 file at `destination` (created beside it and renamed into
/// place). Groups are groups, lists groups of items "0", "1", ...; arrays keep their type
/// (byte order included), shape, maximum extent, chunking, filters HDF5 has and fill value;
/// attributes are typed (strings as variable-length UTF-8, as h5py writes them); arrays
/// that are their dimension's coordinate become dimension scales attached to the arrays
/// naming them; references are written to their targets. What HDF5 cannot keep (attributes
/// of types it has none for, arrays of such types, items that cannot be read) is a
/// LossError, nothing written, unless `common.lossy`: then it is left out and listed in the
/// report's `lost`; what HDF5 keeps differently is in its `notes`.
SaveReport write_hdf5(const model::Tree& tree, const std::string& destination,
                      const Hdf5SaveOptions& options = {}, const SaveOptions& common = {});

/// Adds the "hdf5" format (.h5, .hdf5, .he5, .nc4; recognised by its signature).
void register_hdf5_format(FormatRegistry& registry);

}  // namespace dudley::hdf5
