// Byte order as an array -> array step (Zarr v3's "bytes" codec `endian`, HDF5 and ASDF
// stored order): elements are stored in `endian` order and swapped when that is not the
// machine's.
#include <bit>
#include <cstring>

#include "dudley/core/byte_swap.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

class ByteOrder final : public ArrayCodec {
 public:
  explicit ByteOrder(bool little) : little_(little) {}
  std::string name() const override { return "byteorder"; }
  Configuration configuration() const override { return {{"endian", little_ ? "little" : "big"}}; }

  void encode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    reorder(in, out, chunk);
  }
  void decode(ByteView in, MutableByteView out, const ChunkSpec& chunk) const override {
    reorder(in, out, chunk);
  }

 private:
  void reorder(ByteView in, MutableByteView out, const ChunkSpec& chunk) const {
    if (!in.empty() && in.data() != out.data()) std::memcpy(out.data(), in.data(), in.size());
    const bool native_little = std::endian::native == std::endian::little;
    const size_t es = chunk.element_size;
    if (little_ == native_little || es <= 1) return;
    if (es != 2 && es != 4 && es != 8 && es != 16) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("byteorder: cannot swap elements of {} bytes", es));
    }
    swap_units(out.data(), in.size() / es, static_cast<unsigned>(es));
  }
  bool little_;
};

}  // namespace

std::unique_ptr<ArrayCodec> make_byteorder(const Configuration& c) {
  const std::string endian = string_setting("byteorder", c, "endian", "little");
  if (endian != "little" && endian != "big") {
    throw Error(ErrorCategory::kUsage,
                fmt::format("byteorder: endian must be little or big, not '{}'", endian));
  }
  return std::make_unique<ByteOrder>(endian == "little");
}

}  // namespace dudley::codec
