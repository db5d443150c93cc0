#include "dudley/codec/zlib_pieces.hpp"

#include <isa-l/igzip_lib.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "dudley/core/error.hpp"

namespace dudley::codec {
namespace {

// Small enough that the core using the pieces starts soon and waits little at the end,
// large enough that the hand-over costs nothing.
constexpr size_t kPiece = size_t{4} << 20;

const char* inflate_error(int code) {
  switch (code) {
    case ISAL_END_INPUT:
      return "the stream ends early";
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "a match reaches before the start of the data";
    case ISAL_INVALID_WRAPPER:
      return "not a zlib header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "Adler-32 checksum mismatch";
    default:
      return "corrupt or truncated input";
  }
}

}  // namespace

void decode_zlib_in_pieces(ByteView in, MutableByteView out, const DecodedSoFar& ready) {
  // The state holds ISA-L's 32 KiB window and tables (about 70 KiB): on the heap.
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_ZLIB;
  // ISA-L counts in 32 bits: the input is fed in parts below 4 GiB.
  constexpr size_t kMostIn = size_t{1} << 30;
  size_t in_at = 0;
  size_t done = 0;
  auto feed = [&] {
    if (state->avail_in == 0 && in_at < in.size()) {
      const size_t n = std::min(kMostIn, in.size() - in_at);
      state->next_in = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(in.data() + in_at));
      state->avail_in = static_cast<uint32_t>(n);
      in_at += n;
    }
  };
  for (;;) {
    feed();
    const size_t room = std::min(kPiece, out.size() - done);
    // One byte of room beyond the output lets a stream holding more than it be noticed.
    uint8_t spill = 0;
    state->next_out = room > 0 ? reinterpret_cast<uint8_t*>(out.data() + done) : &spill;
    state->avail_out = room > 0 ? static_cast<uint32_t>(room) : 1;
    const uint32_t in_before = state->avail_in;
    const int code = isal_inflate(state.get());
    if (code != ISAL_DECOMP_OK) {
      throw Error(ErrorCategory::kData, fmt::format("zlib: {}", inflate_error(code)));
    }
    if (room == 0 && state->avail_out == 0) {
      throw Error(
          ErrorCategory::kData,
          fmt::format("zlib: the stream holds more than the {} bytes expected", out.size()));
    }
    const size_t produced = room - std::min<size_t>(room, state->avail_out);
    done += produced;
    if (state->block_state == ISAL_BLOCK_FINISH) break;
    if (produced > 0) ready(done);
    // Nothing decoded, nothing taken, and nothing more to give: the input is used up.
    const bool more_input = state->avail_in > 0 || in_at < in.size();
    if (produced == 0 && state->avail_in == in_before && !(state->avail_in == 0 && more_input)) {
      throw Error(ErrorCategory::kData, "zlib: the stream ends early");
    }
  }
  if (done != out.size()) {
    throw Error(ErrorCategory::kData,
                fmt::format("zlib: the stream decodes to {} bytes, not {}", done, out.size()));
  }
  ready(done);
}

}  // namespace dudley::codec
