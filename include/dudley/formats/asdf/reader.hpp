// Reading ASDF files (header, YAML tree, blocks) as model trees. core/ndarray nodes
// (1.0.0 and 1.1.0) become arrays whose data is read on demand; the rest of the tree becomes
// groups, lists and attributes, so nothing is lost on conversion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dudley/format.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::asdf {

/// ASDF's own open options.
struct AsdfOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "asdf";
  /// Check each block's MD5 (of its data, or of its stored bytes; all zeros: none) when a
  /// whole block is read.
  bool verify_checksums = true;
  /// Let `source: PATH` name files outside the main file's directory (`../x.asdf`, absolute
  /// paths, file: URIs elsewhere). Off: such sources are errors.
  bool allow_external_outside = false;
  /// The largest block (decompressed) that will be read; 0: the machine's physical memory.
  /// A block that claims more is an error, not an allocation.
  uint64_t max_block_bytes = 0;
};

/// Attribute that keeps the YAML tag of a tagged mapping that became a group (a custom
/// object holding arrays), so a writer can put it back.
inline constexpr const char* kTagAttribute = "asdf_tag";
/// Suffix of the sibling array that holds an array's mask ("x" -> "x_mask").
inline constexpr const char* kMaskSuffix = "_mask";

/// Opens `path` as ASDF. Throws Error(kData) naming the place when it is not ASDF, when the
/// tree is not valid YAML, or when the blocks cannot be located; problems of one array
/// (a bad datatype, a view outside its block) become that node's error instead.
model::Tree open_asdf(const std::string& path, const AsdfOpenOptions& options = {});

/// The same for bytes already open (a memory buffer in tests and fuzzing). `path` names
/// the file in errors and is where external sources are looked for.
model::Tree read_asdf(std::shared_ptr<io::ByteSource> source, const std::string& path,
                      const AsdfOpenOptions& options = {});

/// Whether `head` (the first bytes of a file) starts with the ASDF signature "#ASDF ".
bool has_asdf_signature(std::span<const std::byte> head);

}  // namespace dudley::asdf
