// The parts of an ASDF file before its blocks: the "#ASDF" header line, comment lines
// (with "#ASDF_STANDARD"), and the YAML tree up to its "..." end marker.
#pragma once

#include <cstdint>
#include <string>

#include "dudley/io/byte_source.hpp"

namespace dudley::asdf {

struct FileStructure {
  std::string file_version;      ///< from "#ASDF 1.0.0"
  std::string standard_version;  ///< from "#ASDF_STANDARD 1.5.0"; "" when absent
  /// The text from the start of the file through the tree's end marker (the header lines
  /// are YAML comments, so line numbers in it are the file's); "" when there is no tree.
  std::string tree_text;
  /// Where blocks may start: just after the tree, or after the header lines.
  uint64_t tree_end = 0;
};

/// Reads the header, comments and tree of an ASDF file. Throws Error(kData) at byte 0 when
/// the file does not start with "#ASDF ", and at the tree's start when the tree has no end
/// marker.
FileStructure read_structure(const io::ByteSource& source);

}  // namespace dudley::asdf
