// Block headers, finding blocks, and the block index. Every size is checked against the
// file before it is used: a header may claim anything.
#include "blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "yaml_names.hpp"

namespace dudley::asdf {
namespace {

uint64_t be(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

void put_be(std::byte* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<std::byte>(v & 0xff);
    v >>= 8;
  }
}

[[noreturn]] void bad_block(const io::ByteSource& source, uint64_t offset, size_t index,
                            const std::string& message) {
  throw Error(ErrorCategory::kData, fmt::format("block {}: {}", index, message),
              Location::binary(source.name(), offset));
}

bool magic_at(const io::ByteSource& source, uint64_t offset) {
  unsigned char m[4];
  if (!source.contains(offset, 4)) return false;
  if (const unsigned char* p = source.view(offset, 4))
    return std::memcmp(p, kBlockMagic.data(), 4) == 0;
  source.read(offset, 4, m);
  return std::memcmp(m, kBlockMagic.data(), 4) == 0;
}

// The first block magic at or after `start`, or nullopt.
std::optional<uint64_t> find_magic(const io::ByteSource& source, uint64_t start) {
  constexpr uint64_t kStep = 1 << 16;
  std::vector<unsigned char> buf(kStep + 3);
  for (uint64_t at = start; at < source.size(); at += kStep) {
    const uint64_t n = source.read_some(at, kStep + 3, buf.data());
    const auto* begin = buf.data();
    const auto* found = std::search(begin, begin + n, kBlockMagic.begin(), kBlockMagic.end());
    if (found != begin + n) return at + static_cast<uint64_t>(found - begin);
    if (n < kStep + 3) break;
  }
  return std::nullopt;
}

// The offsets the block index lists, when there is one at the end of the source that
// parses; nullopt otherwise (an index is only a hint).
std::optional<std::vector<uint64_t>> read_index(const io::ByteSource& source, uint64_t* index_at) {
  // The index is at the end: look in the last 64 KiB, then in ever larger tails (10,000
  // blocks take about 80 KiB), up to 4 MiB.
  const uint64_t size = source.size();
  std::string tail;
  uint64_t from = 0;
  size_t at = std::string::npos;
  for (uint64_t window = uint64_t{64} << 10;; window *= 4) {
    from = size > window ? size - window : 0;
    tail.resize(size - from);
    source.read(from, tail.size(), tail.data());
    at = tail.rfind(kBlockIndexHeader);
    if (at != std::string::npos || from == 0 || window >= (uint64_t{4} << 20)) break;
  }
  if (at == std::string::npos || (at > 0 && tail[at - 1] != '\n' && tail[at - 1] != '\0')) {
    return std::nullopt;
  }
  try {
    YamlDocument doc = parse_yaml(std::string_view(tail).substr(at), source.name());
    if (!doc.root || !doc.root->is_sequence()) return std::nullopt;
    std::vector<uint64_t> offsets;
    offsets.reserve(doc.root->items.size());
    for (const YamlRef& item : doc.root->items) {
      model::Value v = scalar_value(*item, source.name());
      if (!v.is<int64_t>() || v.as<int64_t>() < 0) return std::nullopt;
      offsets.push_back(static_cast<uint64_t>(v.as<int64_t>()));
    }
    *index_at = from + at;
    return offsets;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::string BlockHeader::compression_name() const {
  std::string name(compression.data(), compression.size());
  name.erase(std::remove(name.begin(), name.end(), '\0'), name.end());
  return name;
}

bool BlockHeader::has_checksum() const {
  return std::any_of(checksum.begin(), checksum.end(), [](uint8_t b) { return b != 0; });
}

BlockHeader read_block_header(const io::ByteSource& source, uint64_t offset, size_t index) {
  unsigned char h[54];
  if (!source.contains(offset, 6))
    bad_block(source, offset, index, "the header is cut off by the end of the file");
  // A mapped file is read in place: a tree of 10,000 arrays has 10,000 headers.
  const unsigned char* mapped = source.contains(offset, 54) ? source.view(offset, 54) : nullptr;
  if (mapped) {
    std::memcpy(h, mapped, 54);
  } else {
    source.read(offset, 6, h);
  }
  if (std::memcmp(h, kBlockMagic.data(), 4) != 0)
    bad_block(source, offset, index, "no block magic (\\xd3BLK) here");
  BlockHeader b;
  b.offset = offset;
  b.header_size = static_cast<uint16_t>(be(h + 4, 2));
  if (b.header_size < kBlockHeaderSize) {
    bad_block(source, offset, index, fmt::format("header_size {} is less than 48", b.header_size));
  }
  if (!source.contains(offset + 6, b.header_size)) {
    bad_block(source, offset, index, "the header is cut off by the end of the file");
  }
  if (!mapped) source.read(offset + 6, 48, h + 6);
  b.flags = static_cast<uint32_t>(be(h + 6, 4));
  std::memcpy(b.compression.data(), h + 10, 4);
  b.allocated_size = be(h + 14, 8);
  b.used_size = be(h + 22, 8);
  b.data_size = be(h + 30, 8);
  std::memcpy(b.checksum.data(), h + 38, 16);
  const uint64_t data_at = b.data_offset();
  if (b.streamed()) {
    // Its data runs to the end of the file, whatever the header says.
    b.allocated_size = b.used_size = b.data_size = source.size() - data_at;
    if (b.compression_name() != "")
      bad_block(source, offset, index, "a streamed block cannot be compressed");
    return b;
  }
  if (b.used_size > b.allocated_size) {
    bad_block(source, offset, index,
              fmt::format("used_size {} is larger than allocated_size {}", b.used_size,
                          b.allocated_size));
  }
  if (!source.contains(data_at, b.allocated_size)) {
    bad_block(
        source, offset, index,
        fmt::format("its {} allocated bytes at offset {} run past the end of the file ({} bytes)",
                    b.allocated_size, data_at, source.size()));
  }
  const std::string compression = b.compression_name();
  if (compression.empty() && b.used_size != b.data_size) {
    bad_block(source, offset, index,
              fmt::format("uncompressed, yet used_size {} differs from data_size {}", b.used_size,
                          b.data_size));
  }
  if (!compression.empty() && !is_known_compression(compression)) {
    bad_block(source, offset, index,
              fmt::format("unknown compression '{}' (known: zlib, bzp2, lz4)", compression));
  }
  return b;
}

std::vector<BlockHeader> locate_blocks(const io::ByteSource& source, uint64_t start,
                                       bool* used_index) {
  if (used_index) *used_index = false;
  std::vector<BlockHeader> blocks;
  const auto first = find_magic(source, start);
  if (!first) return blocks;

  uint64_t index_at = 0;
  if (auto offsets = read_index(source, &index_at);
      offsets && !offsets->empty() && offsets->front() == *first) {
    try {
      for (size_t i = 0; i < offsets->size(); ++i) {
        BlockHeader b = read_block_header(source, (*offsets)[i], i);
        const uint64_t next = i + 1 < offsets->size() ? (*offsets)[i + 1] : index_at;
        if (b.streamed() || b.end() != next) throw Error(ErrorCategory::kData, "index mismatch");
        blocks.push_back(b);
      }
      if (used_index) *used_index = true;
      return blocks;
    } catch (const Error&) {
      blocks.clear();  // an index that does not match the blocks is ignored
    }
  }

  uint64_t at = *first;
  for (size_t i = 0;; ++i) {
    BlockHeader b = read_block_header(source, at, i);
    blocks.push_back(b);
    if (b.streamed()) break;
    at = b.end();
    if (!magic_at(source, at)) break;  // the block index, padding, or the end of the file
  }
  return blocks;
}

std::array<std::byte, 54> encode_block_header(const BlockHeader& h) {
  std::array<std::byte, 54> out{};
  std::memcpy(out.data(), kBlockMagic.data(), 4);
  put_be(out.data() + 4, kBlockHeaderSize, 2);
  put_be(out.data() + 6, h.flags, 4);
  std::memcpy(out.data() + 10, h.compression.data(), 4);
  put_be(out.data() + 14, h.allocated_size, 8);
  put_be(out.data() + 22, h.used_size, 8);
  put_be(out.data() + 30, h.data_size, 8);
  std::memcpy(out.data() + 38, h.checksum.data(), 16);
  return out;
}

std::string encode_block_index(const std::vector<uint64_t>& offsets) {
  // Appended piece by piece: GCC 12 warns (wrongly) of an overread in `string + literal`.
  std::string out(kBlockIndexHeader);
  out += "\n%YAML 1.1\n---\n";
  for (uint64_t o : offsets) out += fmt::format("- {}\n", o);
  out += "...\n";
  return out;
}

}  // namespace dudley::asdf
