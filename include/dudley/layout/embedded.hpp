// A layout carried inside its data file: the layout text follows the data, and a 32-byte
// trailer at the very end says where it is (docs/embedded-layout.md). One file is then
// self-describing; readers look for the trailer when no NAME.dud is beside the data.
//
//   offset from the trailer's start   size  field
//   0                                 8     layout offset: where the text starts (u64 LE)
//   8                                 8     layout length in bytes (u64 LE)
//   16                                4     CRC-32 (zlib) of the layout text (u32 LE)
//   20                                4     trailer version, 1 (u32 LE)
//   24                                8     magic: 0x89 'D' 'L' 'A' 'Y' 0x0D 0x0A 0x1A
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dudley/io/byte_source.hpp"

namespace dudley::layout {

/// Bytes in the trailer.
inline constexpr uint64_t kTrailerSize = 32;

/// The trailer for `layout_text` stored at `layout_offset` (the text's first byte).
std::string embedded_trailer(uint64_t layout_offset, std::string_view layout_text);

/// The layout text embedded in `source`, or nullopt when the file does not end in a trailer.
/// Throws Error(kData) naming the file and byte offset when a trailer is there but damaged:
/// a text that is not where it says (its offset plus length plus the trailer must be the
/// file's length), an unknown version, or a CRC that does not match.
std::optional<std::string> read_embedded_layout(const io::ByteSource& source);

/// Where an embedded layout's diagnostics point: "run.bin#layout" (lines count from the
/// text's first byte).
std::string embedded_layout_name(const std::string& data_path);

}  // namespace dudley::layout
