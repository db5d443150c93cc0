// The pair record: what ties a data file to the layout written beside it in the same write.
//
// A data file and its layout are two files, replaced by two renames; a kill between them, or
// two writers at once, could leave new data beside an old layout, which would read as wrong
// values. So a write that produces both gives them one random identifier: the data file ends
// with a 32-byte pair trailer after the data the layout describes, and the layout's first
// line is a comment naming the same identifier and the data's length:
//
//     # dudley-pair: 6f1c...e2 (16 bytes, hex) 4096 (data length)
//
// Readers that find the layout beside the data check the two agree before reading, so a
// mismatched pair is a clear error, never data. Other Dudley readers see a comment and a few
// bytes after the data, both of which the language ignores. Trailer (little-endian):
// data length (8), identifier (16), magic 89 44 50 41 49 52 0D 0A ("\x89DPAIR\r\n").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dudley/io/byte_source.hpp"

namespace dudley::layout {

/// Bytes of the pair trailer at the end of a paired data file.
inline constexpr uint64_t kPairTrailerBytes = 32;

struct PairRecord {
  std::array<unsigned char, 16> id{};
  uint64_t data_length = 0;  ///< where the trailer starts: the end of the layout's data
};

/// A new record with a random identifier (from the kernel's random source).
PairRecord new_pair_record(uint64_t data_length);

/// The trailer to write at `record.data_length` in the data file.
std::string pair_trailer(const PairRecord& record);

/// The comment line (with its newline) that starts the layout.
std::string pair_line(const PairRecord& record);

/// The record a layout's text starts with; nullopt when it has none (or it is malformed:
/// then the layout is simply not paired).
std::optional<PairRecord> parse_pair_line(std::string_view layout_text);

/// Throws Error(kData) naming both files unless `data` ends with the trailer of `record`.
void verify_pair(const PairRecord& record, const io::ByteSource& data,
                 const std::string& layout_path);

}  // namespace dudley::layout
