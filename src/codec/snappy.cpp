// Snappy with libsnappy: raw blocks (numcodecs has none; Avro containers use it, each block
// followed by the big-endian CRC-32 of its uncompressed bytes, as the Avro spec frames it:
// the setting "crc32": true). The codec Java and Spark Avro writers use most.
#include <snappy.h>
#include <zlib.h>

#include "settings.hpp"

namespace dudley::codec {
namespace {

uint32_t crc32_of(ByteView bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t left = bytes.size();
  while (left > 0) {  // zlib counts in uInt
    const auto step = static_cast<uInt>(std::min<size_t>(left, size_t{1} << 30));
    crc = crc32(crc, p, step);
    p += step;
    left -= step;
  }
  return static_cast<uint32_t>(crc);
}

class Snappy final : public BytesCodec {
 public:
  explicit Snappy(bool crc) : crc_(crc) {}
  std::string name() const override { return "snappy"; }
  Configuration configuration() const override { return {{"crc32", crc_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    out.resize(snappy::MaxCompressedLength(in.size()) + (crc_ ? 4 : 0));
    size_t written = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                        reinterpret_cast<char*>(out.data()), &written);
    if (crc_) {
      const uint32_t crc = crc32_of(in);
      for (int i = 0; i < 4; ++i)
        out[written + static_cast<size_t>(i)] = static_cast<std::byte>(crc >> (24 - 8 * i));
      written += 4;
    }
    out.resize(written);
  }

  std::optional<uint64_t> declared_size(ByteView in) const override {
    size_t n = 0;
    const ByteView body = crc_ && in.size() >= 4 ? in.first(in.size() - 4) : in;
    if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(body.data()), body.size(),
                                       &n)) {
      return std::nullopt;
    }
    return n;
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (crc_ && in.size() < 4) {
      throw Error(ErrorCategory::kData, "snappy: a block shorter than its CRC-32");
    }
    const ByteView body = crc_ ? in.first(in.size() - 4) : in;
    const auto* text = reinterpret_cast<const char*>(body.data());
    size_t n = 0;
    if (!snappy::GetUncompressedLength(text, body.size(), &n)) {
      throw Error(ErrorCategory::kData, "snappy: the block's length header is corrupt");
    }
    if (n > out.size()) return std::nullopt;
    if (!snappy::RawUncompress(text, body.size(), reinterpret_cast<char*>(out.data()))) {
      throw Error(ErrorCategory::kData, "snappy: the block is corrupt");
    }
    if (crc_) {
      const auto* c = reinterpret_cast<const uint8_t*>(in.data()) + body.size();
      const uint32_t stored =
          (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | uint32_t{c[3]};
      const uint32_t actual = crc32_of(out.first(n));
      if (stored != actual) {
        throw Error(ErrorCategory::kData,
                    fmt::format("snappy: CRC-32 {:08x} of the block's bytes, {:08x} stored", actual,
                                stored));
      }
    }
    return n;
  }

 private:
  bool crc_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_snappy(const Configuration& c) {
  return std::make_unique<Snappy>(bool_setting("snappy", c, "crc32", false));
}

}  // namespace dudley::codec
