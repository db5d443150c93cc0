#include "dudley/codec/codec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dudley/core/error.hpp"

namespace dudley::codec {

void BytesCodec::fail(const std::string& message) const {
  throw Error(ErrorCategory::kData, fmt::format("{}: {}", name(), message));
}

void BytesCodec::decode_exact(ByteView in, MutableByteView out) const {
  const std::optional<size_t> produced = decode_to(in, out);
  if (!produced) fail(fmt::format("decodes to more than the {} bytes expected", out.size()));
  if (*produced != out.size()) {
    fail(fmt::format("decodes to {} bytes, {} expected", *produced, out.size()));
  }
}

Bytes BytesCodec::decode(ByteView in, uint64_t limit) const {
  // A stream that declares more than the limit is refused before anything is allocated (a
  // 10-byte zstd frame may claim 2^62 bytes); one that declares less is decoded into that
  // size first, growing like any other if it lied.
  const std::optional<uint64_t> declared = declared_size(in);
  if (declared && *declared > limit) {
    fail(fmt::format("declares {} bytes decoded, more than the limit of {} bytes", *declared,
                     limit));
  }
  // Grow geometrically from a guess: a decode that does not fit starts again in a buffer
  // four times larger, so the work is at most a third more than one decode into the final
  // size, and memory never runs ahead of the output by more than that factor. The smaller
  // buffer is freed before the larger is made: its bytes are decoded again, not copied.
  uint64_t capacity =
      declared ? std::max<uint64_t>(*declared, 1)
               : std::min<uint64_t>(
                     limit, std::max<uint64_t>(uint64_t{64} << 10, uint64_t{4} * in.size()));
  for (;;) {
    Bytes out(static_cast<size_t>(capacity));
    if (const std::optional<size_t> produced = decode_to(in, out)) {
      out.resize(*produced);
      out.shrink_to_fit();
      return out;
    }
    if (capacity >= limit) fail(fmt::format("decodes to more than the limit of {} bytes", limit));
    capacity = std::min<uint64_t>(limit, capacity * 4);
  }
}

}  // namespace dudley::codec
