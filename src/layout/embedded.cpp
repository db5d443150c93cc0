#include "dudley/layout/embedded.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "dudley/codec/checksum.hpp"
#include "dudley/core/error.hpp"

namespace dudley::layout {

namespace {

// PNG-style: a high byte first and CR LF SUB last, so text-mode transfers that mangle line
// ends or truncate at ^Z break the magic instead of silently shifting the offsets.
constexpr std::array<unsigned char, 8> kMagic = {0x89, 'D', 'L', 'A', 'Y', 0x0d, 0x0a, 0x1a};
constexpr uint32_t kVersion = 1;

void put_le(std::string& out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

uint64_t get_le(const unsigned char* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

uint32_t crc_of(std::string_view text) {
  return codec::crc32(std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace

std::string embedded_trailer(uint64_t layout_offset, std::string_view layout_text) {
  std::string out;
  put_le(out, layout_offset, 8);
  put_le(out, layout_text.size(), 8);
  put_le(out, crc_of(layout_text), 4);
  put_le(out, kVersion, 4);
  out.append(reinterpret_cast<const char*>(kMagic.data()), kMagic.size());
  return out;
}

std::optional<std::string> read_embedded_layout(const io::ByteSource& source) {
  const uint64_t size = source.size();
  if (size < kTrailerSize) return std::nullopt;
  const uint64_t at = size - kTrailerSize;
  unsigned char t[kTrailerSize];
  source.read(at, kTrailerSize, t, "the layout trailer");
  if (std::memcmp(t + 24, kMagic.data(), kMagic.size()) != 0) return std::nullopt;
  auto damaged = [&](uint64_t offset, const std::string& why) {
    return Error(ErrorCategory::kData, "damaged embedded layout trailer: " + why,
                 Location::binary(source.name(), offset));
  };
  const uint64_t offset = get_le(t, 8);
  const uint64_t length = get_le(t + 8, 8);
  const auto crc = static_cast<uint32_t>(get_le(t + 16, 4));
  const auto version = static_cast<uint32_t>(get_le(t + 20, 4));
  if (version != kVersion) {
    throw damaged(at + 20, fmt::format("version {} (this reader knows {})", version, kVersion));
  }
  // The text must end exactly where the trailer starts: checked before anything is read or
  // allocated, so a damaged length cannot ask for more memory than the file holds.
  if (offset > at || length != at - offset) {
    throw damaged(at, fmt::format("a layout of {} bytes at offset {} does not end at the "
                                  "trailer (byte {})",
                                  length, offset, at));
  }
  std::string text(length, '\0');
  source.read(offset, length, text.data(), "the embedded layout");
  if (crc_of(text) != crc) {
    throw damaged(offset, fmt::format("the layout's CRC-32 is {:08x}, the trailer says {:08x}",
                                      crc_of(text), crc));
  }
  return text;
}

std::string embedded_layout_name(const std::string& data_path) {
  return data_path + "#layout";
}

}  // namespace dudley::layout
