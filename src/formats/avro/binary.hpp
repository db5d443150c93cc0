// Avro's binary encoding of primitive values (zig-zag varints, length-prefixed bytes,
// little-endian floats), read from a buffer whose every length is checked against what is
// left of it before anything is allocated or copied, and written into a growing buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "dudley/codec/codec.hpp"

namespace dudley::avro {

/// Reads Avro binary values from `data`. Errors are Error(kData) at Location::binary(`where`,
/// `base` + the offset in `data`), so a datum inside a container block names its byte in the
/// file.
class BinaryReader {
 public:
  BinaryReader(std::span<const std::byte> data, std::string where, uint64_t base = 0)
      : data_(data), where_(std::move(where)), base_(base) {}

  /// A `long`: a zig-zag varint of at most 10 bytes that fits 64 bits.
  int64_t read_long();
  /// An `int`: a `long` within 32 bits.
  int32_t read_int();
  bool read_boolean();
  float read_float();
  double read_double();
  /// `bytes` or `string`: a length, then that many bytes, as a view into the buffer (the
  /// length checked against what is left before it is used).
  std::span<const std::byte> read_bytes();
  std::string_view read_string();
  /// `n` bytes (a `fixed`), as a view.
  std::span<const std::byte> read_fixed(uint64_t n);
  /// The count of the next block of an array or map: 0 ends it; a negative count is
  /// followed by the block's size in bytes, which is read and checked here. Each item takes
  /// at least `min_item_bytes` bytes, so a count larger than what is left is an error.
  uint64_t read_block_count(uint64_t min_item_bytes);

  /// Bytes read so far, and left.
  uint64_t position() const noexcept { return at_; }
  uint64_t remaining() const noexcept { return data_.size() - at_; }
  bool at_end() const noexcept { return at_ == data_.size(); }
  /// The offset of the next byte as errors give it (base included).
  uint64_t offset() const noexcept { return base_ + at_; }
  const std::string& where() const noexcept { return where_; }
  std::span<const std::byte> data() const noexcept { return data_; }

  /// Throws Error(kData) "MESSAGE" at the current offset.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::span<const std::byte> take(uint64_t n, const char* what);

  std::span<const std::byte> data_;
  std::string where_;
  uint64_t base_ = 0;
  uint64_t at_ = 0;
};

/// Appends Avro binary values to a buffer.
class BinaryWriter {
 public:
  explicit BinaryWriter(codec::Bytes& out) : out_(out) {}

  void write_long(int64_t v);
  void write_int(int32_t v) { write_long(v); }
  void write_boolean(bool v);
  void write_float(float v);
  void write_double(double v);
  /// A length, then the bytes.
  void write_bytes(std::span<const std::byte> bytes);
  void write_string(std::string_view text);
  /// Raw bytes with no length (a `fixed`, a sync marker, data written in pieces after
  /// write_long of their total size).
  void write_raw(std::span<const std::byte> bytes);
  /// Room for `n` raw bytes at the end, to be filled by the caller (returned).
  std::byte* extend(uint64_t n);
  /// Makes room for `n` more bytes in one allocation (a large record written in pieces
  /// would otherwise grow the buffer twice, copying it).
  void reserve(uint64_t n) {
    // Geometric growth kept: records appended to one block do not each reallocate it.
    if (out_.capacity() - out_.size() < n)
      out_.reserve(std::max(out_.size() + n, 2 * out_.capacity()));
  }

  codec::Bytes& buffer() noexcept { return out_; }

 private:
  codec::Bytes& out_;
};

/// The bytes a `long` takes in Avro binary (1 to 10).
size_t long_size(int64_t v) noexcept;

}  // namespace dudley::avro
