#include "vlen_chunks.hpp"

#include <fmt/format.h>

#include <cstring>

#include "dudley/core/error.hpp"
#include "dudley/core/text.hpp"

namespace dudley::zarr {
namespace {

uint32_t load_u32le(const std::byte* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void store_u32le(std::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

}  // namespace

VLenChunkCodec::VLenChunkCodec(const Pipeline& pipeline)
    : utf8_(pipeline.array_to_bytes.name == "vlen-utf8") {
  for (const CodecSpec& c : pipeline.bytes_to_bytes) {
    codecs_.push_back(
        codec::make_bytes_codec(c.name, nlohmann::json::parse(c.configuration.dump())));
  }
}

std::vector<std::string_view> VLenChunkCodec::decode(codec::ByteView encoded, uint64_t items,
                                                     uint64_t limit, codec::Bytes& decoded) const {
  decoded.assign(encoded.begin(), encoded.end());
  for (size_t i = codecs_.size(); i-- > 0;) decoded = codecs_[i]->decode(decoded, limit);
  const uint64_t size = decoded.size();
  const std::byte* p = decoded.data();
  if (size < 4) {
    throw Error(ErrorCategory::kData,
                fmt::format("a string or bytes chunk of {} bytes has no item count", size));
  }
  const uint64_t count = load_u32le(p);
  if (count != items) {
    throw Error(ErrorCategory::kData,
                fmt::format("the chunk holds {} items; its shape has {}", count, items));
  }
  std::vector<std::string_view> out;
  out.reserve(static_cast<size_t>(std::min<uint64_t>(count, (size - 4) / 4)));
  uint64_t at = 4;
  for (uint64_t i = 0; i < count; ++i) {
    if (size - at < 4) {
      throw Error(ErrorCategory::kData,
                  fmt::format("item {} of {}: its length is past the chunk's end at byte {}", i,
                              count, at));
    }
    const uint64_t length = load_u32le(p + at);
    at += 4;
    if (length > size - at) {
      throw Error(ErrorCategory::kData,
                  fmt::format("item {} of {}: {} bytes at byte {} run past the chunk's {}", i,
                              count, length, at, size));
    }
    out.emplace_back(reinterpret_cast<const char*>(p + at), static_cast<size_t>(length));
    at += length;
  }
  if (at != size) {
    throw Error(ErrorCategory::kData,
                fmt::format("{} bytes follow the chunk's last item", size - at));
  }
  return out;
}

void VLenChunkCodec::encode(const std::vector<std::string_view>& items, codec::Bytes& out) const {
  constexpr uint64_t kMax32 = 0xffffffffu;
  if (items.size() > kMax32) {
    throw Error(ErrorCategory::kLimit, "a chunk of more than 2^32 - 1 strings");
  }
  uint64_t total = 4;
  for (const std::string_view& item : items) {
    if (item.size() > kMax32) {
      throw Error(ErrorCategory::kLimit, "a string or bytes item of 4 GiB or more");
    }
    // Readers decode vlen-utf8 as UTF-8 (zarr-python fails on anything else): bytes that are
    // not (numpy S strings of any byte) are refused rather than written unreadable.
    if (utf8_ && !is_utf8(item)) {
      throw Error(ErrorCategory::kType,
                  "a string that is not UTF-8 text: Zarr v3 strings (vlen-utf8) are UTF-8 "
                  "(--zarr-format 2 keeps fixed-length bytes as they are)");
    }
    total += 4 + item.size();
  }
  codec::Bytes framed(total);
  std::byte* p = framed.data();
  store_u32le(p, static_cast<uint32_t>(items.size()));
  p += 4;
  for (const std::string_view& item : items) {
    store_u32le(p, static_cast<uint32_t>(item.size()));
    if (!item.empty()) std::memcpy(p + 4, item.data(), item.size());  // an empty one may be null
    p += 4 + item.size();
  }
  for (const auto& c : codecs_) {
    codec::Bytes next;
    c->encode_into(framed, next);
    framed = std::move(next);
  }
  out = std::move(framed);
}

}  // namespace dudley::zarr
