#include "binary.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"

namespace dudley::avro {

void BinaryReader::fail(const std::string& message) const {
  throw Error(ErrorCategory::kData, message, Location::binary(where_, offset()));
}

std::span<const std::byte> BinaryReader::take(uint64_t n, const char* what) {
  if (n > remaining()) {
    fail(fmt::format("{} of {} bytes runs past the end ({} bytes left)", what, n, remaining()));
  }
  const auto out = data_.subspan(at_, n);
  at_ += n;
  return out;
}

int64_t BinaryReader::read_long() {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (at_ == data_.size()) fail("a varint runs past the end");
    const auto byte = static_cast<uint8_t>(data_[at_]);
    // The tenth byte may hold only the top bit of 64.
    if (shift == 63 && byte > 1) fail("a varint longer than 64 bits");
    ++at_;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
    }
  }
  fail("a varint longer than 10 bytes");
}

int32_t BinaryReader::read_int() {
  const uint64_t start = at_;
  const int64_t v = read_long();
  if (v < INT32_MIN || v > INT32_MAX) {
    at_ = start;
    fail(fmt::format("an int of {} does not fit 32 bits", v));
  }
  return static_cast<int32_t>(v);
}

bool BinaryReader::read_boolean() {
  const auto b = take(1, "a boolean");
  const auto v = static_cast<uint8_t>(b[0]);
  if (v > 1) {
    --at_;
    fail(fmt::format("a boolean byte of {} (0 or 1 expected)", v));
  }
  return v == 1;
}

float BinaryReader::read_float() {
  const auto b = take(4, "a float");
  uint32_t bits = 0;
  std::memcpy(&bits, b.data(), 4);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
  return std::bit_cast<float>(bits);
}

double BinaryReader::read_double() {
  const auto b = take(8, "a double");
  uint64_t bits = 0;
  std::memcpy(&bits, b.data(), 8);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap64(bits);
  return std::bit_cast<double>(bits);
}

std::span<const std::byte> BinaryReader::read_bytes() {
  const uint64_t start = at_;
  const int64_t n = read_long();
  if (n < 0) {
    at_ = start;
    fail(fmt::format("a length of {}", n));
  }
  if (static_cast<uint64_t>(n) > remaining()) {
    at_ = start;
    fail(fmt::format("a length of {} bytes runs past the end ({} bytes left)", n,
                     remaining() - long_size(n)));
  }
  return take(static_cast<uint64_t>(n), "bytes");
}

std::string_view BinaryReader::read_string() {
  const auto b = read_bytes();
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::span<const std::byte> BinaryReader::read_fixed(uint64_t n) {
  return take(n, "a fixed");
}

uint64_t BinaryReader::read_block_count(uint64_t min_item_bytes) {
  const uint64_t start = at_;
  int64_t count = read_long();
  if (count < 0) {
    if (count == INT64_MIN) {
      at_ = start;
      fail("a block count of -2^63");
    }
    count = -count;
    const uint64_t size_at = at_;
    const int64_t size = read_long();
    if (size < 0 || static_cast<uint64_t>(size) > remaining()) {
      at_ = size_at;
      fail(fmt::format("a block of {} bytes ({} left)", size, remaining()));
    }
  }
  // Items of no bytes (null, empty records) can be many; others cannot outnumber the bytes.
  if (min_item_bytes > 0 && static_cast<uint64_t>(count) > remaining() / min_item_bytes) {
    at_ = start;
    fail(fmt::format("a block of {} items in {} bytes", count, remaining()));
  }
  return static_cast<uint64_t>(count);
}

size_t long_size(int64_t v) noexcept {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  size_t n = 1;
  while (z >= 0x80) {
    z >>= 7;
    ++n;
  }
  return n;
}

void BinaryWriter::write_long(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::byte buf[10];
  size_t n = 0;
  while (z >= 0x80) {
    buf[n++] = static_cast<std::byte>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  buf[n++] = static_cast<std::byte>(z);
  out_.insert(out_.end(), buf, buf + n);
}

void BinaryWriter::write_boolean(bool v) {
  out_.push_back(std::byte{v ? uint8_t{1} : uint8_t{0}});
}

void BinaryWriter::write_float(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
  std::memcpy(extend(4), &bits, 4);
}

void BinaryWriter::write_double(double v) {
  uint64_t bits = std::bit_cast<uint64_t>(v);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap64(bits);
  std::memcpy(extend(8), &bits, 8);
}

void BinaryWriter::write_bytes(std::span<const std::byte> bytes) {
  write_long(static_cast<int64_t>(bytes.size()));
  write_raw(bytes);
}

void BinaryWriter::write_string(std::string_view text) {
  write_bytes({reinterpret_cast<const std::byte*>(text.data()), text.size()});
}

void BinaryWriter::write_raw(std::span<const std::byte> bytes) {
  if (!bytes.empty()) std::memcpy(extend(bytes.size()), bytes.data(), bytes.size());
}

std::byte* BinaryWriter::extend(uint64_t n) {
  const size_t at = out_.size();
  out_.resize(at + n);
  return out_.data() + at;
}

}  // namespace dudley::avro
