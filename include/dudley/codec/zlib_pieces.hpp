// A zlib stream decoded in order, a piece at a time, so that what is decoded can be used
// (hashed, written) on another core while the rest decodes. libdeflate, the whole-buffer
// decoder, only hands back the whole; zlib's own streaming inflate takes twice as long.
#pragma once

#include <cstddef>
#include <functional>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

/// Called with n each time the first n bytes of the output are final (n grows, in pieces
/// of a few MiB, to the output's size).
using DecodedSoFar = std::function<void(size_t n)>;

/// Decodes the zlib stream (RFC 1950) `in` into exactly `out`, calling `ready` as pieces are
/// done, with Intel's ISA-L inflate (as fast here as libdeflate's whole-buffer decode). The
/// Adler-32 at the stream's end is checked. Throws Error(kData) "zlib: ..." for a damaged
/// stream, one that ends early, or one holding more than out.size() bytes; `ready` has then
/// been told only of bytes decoded before the damage.
void decode_zlib_in_pieces(ByteView in, MutableByteView out, const DecodedSoFar& ready);

}  // namespace dudley::codec
