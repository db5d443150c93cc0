// numcodecs' PackBits filter: a boolean chunk as bits, eight to a byte, the first bit the
// highest (numpy's packbits), after one byte giving how many bits pad the last byte.
#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr const char* kName = "numcodecs.packbits";

class PackBits final : public BytesCodec {
 public:
  std::string name() const override { return kName; }
  Configuration configuration() const override { return Configuration::object(); }

  void encode_into(ByteView in, Bytes& out) const override {
    const size_t packed = (in.size() + 7) / 8;
    out.assign(packed + 1, std::byte{0});
    out[0] = static_cast<std::byte>(packed * 8 - in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != std::byte{0}) out[1 + i / 8] |= static_cast<std::byte>(0x80u >> (i % 8));
    }
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.empty()) fail("an empty chunk has no count of padding bits");
    const auto padding = static_cast<size_t>(in[0]);
    const size_t bits = (in.size() - 1) * 8;
    if (padding > 7 || padding > bits) {
      fail(fmt::format("{} padding bits in {} bytes of bits", padding, in.size() - 1));
    }
    const size_t n = bits - padding;
    if (n > out.size()) return std::nullopt;
    for (size_t i = 0; i < n; ++i) {
      const auto byte = static_cast<unsigned>(in[1 + i / 8]);
      out[i] = static_cast<std::byte>((byte >> (7 - i % 8)) & 1u);
    }
    return n;
  }
};

}  // namespace

std::unique_ptr<BytesCodec> make_packbits(const Configuration& c) {
  only_settings(kName, c, {});
  return std::make_unique<PackBits>();
}

}  // namespace dudley::codec
