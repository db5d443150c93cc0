// ASDF (the Advanced Scientific Data Format): a YAML tree with binary blocks. Files are read
// as model trees (core/ndarray 1.0.0 and 1.1.0 nodes become arrays read on demand; the rest
// of the tree groups, lists and attributes, so nothing is lost on conversion) and written
// as ASDF Standard 1.5.0 files that the reference library opens and validates.
//
// The public face of the format, shaped as every format's is (docs/development.md):
// AsdfOpenOptions, AsdfSaveOptions, open_asdf, write_asdf and register_asdf_format.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dudley/format.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::asdf {

/// How ASDF files are read.
struct AsdfOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "asdf";
  /// Check each block's MD5 (of its data, or of its stored bytes; all zeros: none) when a
  /// whole block is read.
  bool verify_checksums = true;
  /// Let `source: PATH` name files anywhere (`../x.asdf`, absolute paths, file: URIs
  /// elsewhere), as OpenOptions::allow_outside = {"/"} does. Off: a source is read only
  /// inside the main file's directory or a folder OpenOptions::allow_outside names, judged
  /// where it really leads (symbolic links resolved); others are errors.
  bool allow_external_outside = false;
  /// The largest block (decompressed) that will be read; 0: the machine's physical memory.
  /// A block that claims more is an error, not an allocation.
  uint64_t max_block_bytes = 0;
};

/// How ASDF files are written.
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

/// Opens `path` as ASDF. Throws Error(kData) naming the place when it is not ASDF, when the
/// tree is not valid YAML, or when the blocks cannot be located; problems of one array
/// (a bad datatype, a view outside its block) become that node's error instead. `common`
/// is accepted for the same shape as every format's open; ASDF reads the whole tree.
model::Tree open_asdf(const std::string& path, const AsdfOpenOptions& options = {},
                      const OpenOptions& common = {});

/// The same for bytes already open (a memory buffer in tests and fuzzing). `path` names
/// the file in errors and is where external sources are looked for.
model::Tree open_asdf(std::shared_ptr<io::ByteSource> source, const std::string& path,
                      const AsdfOpenOptions& options = {}, const OpenOptions& common = {});

/// Writes `tree` to `destination` (atomically: a complete file or none): groups become
/// mappings, lists sequences, arrays core/ndarray-1.0.0 nodes with their data in blocks
/// (compressed, or inline for small arrays, as `options` says), attributes the tree's other
/// values; then a block index. Returns the file written, in `notes` what the file keeps
/// differently (a parameter renamed beside a member of the same name, struct type names)
/// and in `lost` what a lossy save left out. Throws Error(kType) for an array whose type
/// ASDF cannot hold, naming it, and LossError, before writing anything, for items the file
/// has no place for (pointees, attributes without a place, a root that is a list) unless
/// `common.lossy`.
SaveReport write_asdf(const model::Tree& tree, const std::string& destination,
                      const AsdfSaveOptions& options = {}, const SaveOptions& common = {});

/// Adds the "asdf" format (extension .asdf, signature "#ASDF ").
void register_asdf_format(FormatRegistry& registry);

}  // namespace dudley::asdf
