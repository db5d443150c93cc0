// numpy's .npy files (format versions 1.0, 2.0 and 3.0): one array after a header that is a
// Python dict literal ({'descr': ..., 'fortran_order': ..., 'shape': (...)}).
//
// The public face of the format, shaped as every format's is (docs/development.md):
// NpyOpenOptions, NpySaveOptions, open_npy, write_npy and register_npy_format.
#pragma once

#include <string>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::npy {

/// How .npy files are read: nothing of .npy's own yet.
struct NpyOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "npy";
};

/// How .npy files are written: nothing of .npy's own yet.
struct NpySaveOptions : FormatOptions {
  static constexpr const char* kFormat = "npy";
};

/// The .npy file at `path` as a tree whose root is its array (named after nothing). A
/// Fortran-ordered array reads in C order (transposed as numpy does). Throws Error(kData)
/// naming the byte offset of a header that is not one or an array that runs past the end.
/// `common` is accepted for the same shape as every format's open.
model::Tree open_npy(const std::string& path, const NpyOpenOptions& options = {},
                     const OpenOptions& common = {});

/// Writes the one array of `tree` (its root, or the only array of a chain of groups) as the
/// .npy file `destination` (atomically), in native byte order; variable-length strings as
/// fixed-length ones as long as the longest (a note says so). Throws Error(kUsage) for a
/// tree of more than one array, Error(kType) for a type .npy has no descr for, and
/// LossError for attributes and masks unless `common.lossy`.
SaveReport write_npy(const model::Tree& tree, const std::string& destination,
                     const NpySaveOptions& options = {}, const SaveOptions& common = {});

/// Adds the "npy" format (.npy).
void register_npy_format(FormatRegistry& registry);

}  // namespace dudley::npy
