// Writing model trees as ASDF Standard 1.5.0 files that the reference library opens and
// validates: groups become mappings, lists sequences, arrays core/ndarray-1.0.0 nodes with
// their data in blocks (optionally compressed, or inline for small arrays on request),
// attributes the tree's other values; then a block index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "dudley/format.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::asdf {

/// ASDF's own save options.
struct AsdfSaveOptions : FormatOptions {
  static constexpr const char* kFormat = "asdf";
  /// Block compression for every array: "" (none), "zlib", "bzp2" or "lz4".
  std::string compression;
  /// The compressor's level; -1: its default.
  int level = -1;
  /// Store each block's MD5 (of its uncompressed data, as the reference library does).
  /// Off: all zeros, which readers take as "no checksum"; MD5 runs at about 0.5 GB/s, so it
  /// bounds how fast a compressed block can be written.
  bool checksums = true;
  /// Arrays of at most this many elements are written inline in the tree (0: none).
  uint64_t inline_threshold = 0;
};

/// Writes one block (header and data, compressed as `options` says) at `at` of `out`;
/// returns where it ends.
uint64_t write_block(io::AtomicFile& out, uint64_t at, std::span<const std::byte> raw,
                     const AsdfSaveOptions& options);

/// Writes `tree` to `path` (atomically: a complete file or none). Returns the file's size.
/// Throws Error(kType) for an array whose type ASDF cannot hold, naming it, and LossError,
/// before writing anything, for items the file has no place for (pointees, attributes
/// without a place, a root that is a list) unless `common.lossy`. `report`, when given,
/// receives in `notes` what the file keeps differently (a parameter renamed beside a member
/// of the same name, struct type names) and in `lost` what a lossy save left out.
uint64_t write_asdf(const model::Tree& tree, const std::string& path,
                    const AsdfSaveOptions& options, const SaveOptions& common = {},
                    SaveReport* report = nullptr);

}  // namespace dudley::asdf
