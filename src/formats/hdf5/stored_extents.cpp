#include "stored_extents.hpp"

#include <algorithm>
#include <cstring>

namespace dudley::hdf5 {
namespace {

constexpr uint16_t kDataspaceMessage = 0x0001;
constexpr size_t kLengthSize = 8;  // "size of lengths": 8 in every file h5py and libhdf5 write

// Little-endian reads inside `bytes`; nullopt past its end.
class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::optional<uint64_t> read(size_t at, size_t width) const {
    if (at > bytes_.size() || width > bytes_.size() - at) return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) {
      v |= static_cast<uint64_t>(std::to_integer<uint8_t>(bytes_[at + i])) << (8 * i);
    }
    return v;
  }
  size_t size() const { return bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
};

// The offset (in `header`) of the first size of a dataspace message whose data starts at
// `at`, when its rank is `rank`.
std::optional<size_t> sizes_in_dataspace(const Cursor& c, size_t at, size_t rank) {
  const auto version = c.read(at, 1), ndims = c.read(at + 1, 1);
  if (!version || !ndims || *ndims != rank) return std::nullopt;
  if (*version == 1) return at + 8;  // version, rank, flags, reserved (1 + 4 bytes)
  if (*version == 2) return at + 4;  // version, rank, flags, type
  return std::nullopt;
}

// The data offset of the dataspace message in the first chunk of a version 1 header.
std::optional<size_t> dataspace_v1(const Cursor& c) {
  const auto messages = c.read(2, 2), chunk = c.read(8, 4);
  if (!messages || !chunk) return std::nullopt;
  size_t at = 16;  // a 12-byte prefix, padded to 8
  const size_t end = static_cast<size_t>(std::min<uint64_t>(16 + *chunk, c.size()));
  for (uint64_t m = 0; m < *messages && at + 8 <= end; ++m) {
    const auto type = c.read(at, 2), size = c.read(at + 2, 2);
    if (!type || !size) return std::nullopt;
    if (*type == kDataspaceMessage) return at + 8;
    at += 8 + static_cast<size_t>(*size);
  }
  return std::nullopt;
}

// The same in a version 2 header ("OHDR").
std::optional<size_t> dataspace_v2(const Cursor& c) {
  const auto flags = c.read(5, 1);
  if (!flags) return std::nullopt;
  size_t at = 6;
  if (*flags & 0x20) at += 16;  // access, modification, change and birth times
  if (*flags & 0x10) at += 4;   // attribute storage phase change values
  const size_t width = size_t{1} << (*flags & 0x03);
  const auto chunk = c.read(at, width);
  if (!chunk) return std::nullopt;
  at += width;
  // A first chunk longer than the bytes given is searched as far as they go.
  const size_t end = static_cast<size_t>(std::min<uint64_t>(at + *chunk, c.size()));
  const size_t prefix = (*flags & 0x04) ? 6 : 4;  // type, size, flags (+ creation order)
  while (at + prefix <= end) {
    const auto type = c.read(at, 1), size = c.read(at + 1, 2);
    if (!type || !size) return std::nullopt;
    if (*type == kDataspaceMessage) return at + prefix;
    at += prefix + static_cast<size_t>(*size);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<uint64_t>> stored_extent_offsets(std::span<const std::byte> header,
                                                           uint64_t header_address,
                                                           const std::vector<int64_t>& dims) {
  const Cursor c(header);
  std::optional<size_t> message;
  if (header.size() >= 4 && std::memcmp(header.data(), "OHDR", 4) == 0) {
    if (c.read(4, 1) == 2) message = dataspace_v2(c);
  } else if (c.read(0, 1) == 1) {
    message = dataspace_v1(c);
  }
  if (!message) return std::nullopt;
  const std::optional<size_t> sizes = sizes_in_dataspace(c, *message, dims.size());
  if (!sizes) return std::nullopt;
  std::vector<uint64_t> offsets;
  for (size_t d = 0; d < dims.size(); ++d) {
    const size_t at = *sizes + d * kLengthSize;
    const auto value = c.read(at, kLengthSize);
    if (!value || dims[d] < 0 || *value != static_cast<uint64_t>(dims[d])) return std::nullopt;
    if (header_address > UINT64_MAX - at) return std::nullopt;
    offsets.push_back(header_address + at);
  }
  return offsets;
}

}  // namespace dudley::hdf5
