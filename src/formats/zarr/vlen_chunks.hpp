// Chunks of Zarr's variable-length types (`string`, `bytes`: the vlen-utf8 and vlen-bytes
// codecs, numcodecs' VLenUTF8/VLenBytes framing): a u32le item count, then each item as a
// u32le byte length and its bytes; compressed by the pipeline's bytes -> bytes codecs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "metadata.hpp"

namespace dudley::zarr {

/// The bytes -> bytes codecs of a vlen pipeline, applied in order to encode and in reverse
/// to decode a chunk whose decoded size is not known ahead.
class VLenChunkCodec {
 public:
  explicit VLenChunkCodec(const Pipeline& pipeline);

  /// The items of an encoded chunk that must hold `items` of them, as views into `decoded`
  /// (which holds the decoded framing). Error(kData) naming the problem for a wrong item
  /// count, lengths past the end, or bytes left over; decoding stops at `limit` bytes.
  std::vector<std::string_view> decode(codec::ByteView encoded, uint64_t items, uint64_t limit,
                                       codec::Bytes& decoded) const;

  /// The encoded chunk of `items` (each its bytes) into `out`. Error(kLimit) when an item or
  /// the count does not fit the framing's 32 bits.
  void encode(const std::vector<std::string_view>& items, codec::Bytes& out) const;

 private:
  bool utf8_ = false;  // vlen-utf8: every string written is checked to be UTF-8
  std::vector<std::unique_ptr<codec::BytesCodec>> codecs_;
};

}  // namespace dudley::zarr
