// Byte shuffle (HDF5's shuffle filter, numcodecs' Shuffle) and bit shuffle (the bitshuffle
// transposition, over a whole chunk). Both group like bytes (or bits) of all elements
// together, so that a following compressor sees long runs of similar values.
#include <cstring>

#include "settings.hpp"

namespace dudley::codec {
namespace {

size_t element_size_of(size_t configured, const ChunkSpec& chunk) {
  return configured != 0 ? configured : chunk.element_size;
}

// Byte j of element i goes to j * n + i; bytes past the last whole element stay in place.
class ByteShuffle final : public ArrayCodec {
 public:
  explicit ByteShuffle(size_t element_size) : element_size_(element_size) {}
  std::string name() const override { return "shuffle"; }
  Configuration configuration() const override { return {{"elementsize", element_size_}}; }

  void encode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    transpose(in, out, chunk, true);
  }
  void decode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    transpose(in, out, chunk, false);
  }

 private:
  // The n x es byte matrix of the elements, transposed (encode) or transposed back.
  void transpose(ByteView in, MutableByteView out, const ChunkSpec& chunk, bool encode) const {
    const size_t es = element_size_of(element_size_, chunk);
    const size_t n = es ? in.size() / es : 0;
    if (es <= 1) {
      copy(in, out);
      return;
    }
    const auto* src = in.data();
    auto* dst = out.data();
    for (size_t j = 0; j < es; ++j) {
      for (size_t i = 0; i < n; ++i) {
        if (encode) {
          dst[j * n + i] = src[i * es + j];
        } else {
          dst[i * es + j] = src[j * n + i];
        }
      }
    }
    tail(in, out, n * es);
  }
  static void copy(ByteView in, MutableByteView out) {
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
  }
  static void tail(ByteView in, MutableByteView out, size_t from) {
    if (from < in.size()) std::memcpy(out.data() + from, in.data() + from, in.size() - from);
  }
  size_t element_size_;
};

// Bit b of byte j of element i goes to bit (j * 8 + b) * n + i of the output (bits counted
// from the least significant of each byte), for the first n elements, n a multiple of 8;
// the remaining bytes stay in place. This is the bitshuffle library's transposition with one
// block spanning the chunk.
class BitShuffle final : public ArrayCodec {
 public:
  explicit BitShuffle(size_t element_size) : element_size_(element_size) {}
  std::string name() const override { return "bitshuffle"; }
  Configuration configuration() const override { return {{"elementsize", element_size_}}; }

  void encode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    const size_t es = element_size_of(element_size_, chunk);
    const size_t n = es ? in.size() / es / 8 * 8 : 0;
    const size_t body = n * es;
    if (body > 0) std::memset(out.data(), 0, body);
    const auto* src = reinterpret_cast<const uint8_t*>(in.data());
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < es; ++j) {
        const uint8_t byte = src[i * es + j];
        for (size_t b = 0; b < 8; ++b) {
          const size_t bit = (j * 8 + b) * n + i;
          dst[bit / 8] |= static_cast<uint8_t>(((byte >> b) & 1u) << (bit % 8));
        }
      }
    }
    if (body < in.size()) std::memcpy(out.data() + body, in.data() + body, in.size() - body);
  }

  void decode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    const size_t es = element_size_of(element_size_, chunk);
    const size_t n = es ? in.size() / es / 8 * 8 : 0;
    const size_t body = n * es;
    if (body > 0) std::memset(out.data(), 0, body);
    const auto* src = reinterpret_cast<const uint8_t*>(in.data());
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < es; ++j) {
        uint8_t byte = 0;
        for (size_t b = 0; b < 8; ++b) {
          const size_t bit = (j * 8 + b) * n + i;
          byte |= static_cast<uint8_t>(((src[bit / 8] >> (bit % 8)) & 1u) << b);
        }
        dst[i * es + j] = byte;
      }
    }
    if (body < in.size()) std::memcpy(out.data() + body, in.data() + body, in.size() - body);
  }

 private:
  size_t element_size_;
};

// numcodecs' Shuffle as Zarr stores it: a filter on the serialized chunk (v2), a bytes ->
// bytes codec "numcodecs.shuffle" (v3, zarr-python 3's name), its element size given.
class ShuffleBytes final : public BytesCodec {
 public:
  explicit ShuffleBytes(size_t element_size)
      : shuffle_(element_size), element_size_(element_size) {}
  std::string name() const override { return "numcodecs.shuffle"; }
  Configuration configuration() const override { return {{"elementsize", element_size_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    out.resize(in.size());
    shuffle_.encode(in, {out.data(), out.size()}, {element_size_, {}});
  }
  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() > out.size()) return std::nullopt;
    shuffle_.decode(in, out.first(in.size()), {element_size_, {}});
    return in.size();
  }

 private:
  ByteShuffle shuffle_;
  size_t element_size_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_shuffle_bytes(const Configuration& c) {
  // numcodecs' default element size is 4.
  return std::make_unique<ShuffleBytes>(
      static_cast<size_t>(int_setting("numcodecs.shuffle", c, "elementsize", 4, 1, 1 << 20)));
}

std::unique_ptr<ArrayCodec> make_shuffle(const Configuration& c) {
  return std::make_unique<ByteShuffle>(
      static_cast<size_t>(int_setting("shuffle", c, "elementsize", 0, 0, 1 << 20)));
}

std::unique_ptr<ArrayCodec> make_bitshuffle(const Configuration& c) {
  return std::make_unique<BitShuffle>(
      static_cast<size_t>(int_setting("bitshuffle", c, "elementsize", 0, 0, 1 << 20)));
}

}  // namespace dudley::codec
