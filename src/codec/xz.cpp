// xz (LZMA2 in the .xz container) with liblzma: Avro containers' "xz" codec, as Java's
// XZCompressorOutputStream and Python's lzma module write it (preset 6, CRC-64 check).
#include <lzma.h>

#include <algorithm>

#include "settings.hpp"

namespace dudley::codec {
namespace {

// The decoder's memory, whatever a stream's header asks for: preset 9's dictionary (64 MiB)
// fits with room; a stream claiming more is refused rather than obeyed.
constexpr uint64_t kDecoderMemory = uint64_t{256} << 20;

class Xz final : public BytesCodec {
 public:
  explicit Xz(int level) : level_(level) {}
  std::string name() const override { return "xz"; }
  Configuration configuration() const override { return {{"level", level_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    out.resize(lzma_stream_buffer_bound(in.size()));
    size_t written = 0;
    const lzma_ret ret =
        lzma_easy_buffer_encode(static_cast<uint32_t>(level_), LZMA_CHECK_CRC64, nullptr,
                                reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                reinterpret_cast<uint8_t*>(out.data()), &written, out.size());
    if (ret != LZMA_OK) fail(fmt::format("compressor failed ({})", static_cast<int>(ret)));
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    lzma_stream s = LZMA_STREAM_INIT;
    // Streams may follow one another (as `cat a.xz b.xz`, which xz -d accepts).
    if (lzma_stream_decoder(&s, kDecoderMemory, LZMA_CONCATENATED) != LZMA_OK)
      fail("cannot start the decompressor");
    struct End {
      lzma_stream* s;
      ~End() { lzma_end(s); }
    } end{&s};
    s.next_in = reinterpret_cast<const uint8_t*>(in.data());
    s.avail_in = in.size();
    s.next_out = reinterpret_cast<uint8_t*>(out.data());
    s.avail_out = out.size();
    for (;;) {
      const lzma_ret ret = lzma_code(&s, LZMA_FINISH);
      if (ret == LZMA_STREAM_END) return out.size() - s.avail_out;
      if (ret == LZMA_OK || ret == LZMA_BUF_ERROR) {
        if (s.avail_out == 0) {
          // Full: more to come means the output does not fit.
          uint8_t spare = 0;
          s.next_out = &spare;
          s.avail_out = 1;
          const lzma_ret more = lzma_code(&s, LZMA_FINISH);
          if (more == LZMA_STREAM_END && s.avail_out == 1) return out.size();
          if (s.avail_out == 0) return std::nullopt;
          if (more != LZMA_OK && more != LZMA_BUF_ERROR) fail(message(more));
        }
        if (ret == LZMA_BUF_ERROR) fail("truncated input: the compressed stream ends early");
        continue;
      }
      fail(message(ret));
    }
  }

 private:
  static std::string message(lzma_ret ret) {
    switch (ret) {
      case LZMA_FORMAT_ERROR:
        return "corrupt input: not an xz stream";
      case LZMA_DATA_ERROR:
        return "corrupt input: bad data";
      case LZMA_MEMLIMIT_ERROR:
        return fmt::format("the stream asks for more than {} bytes of decoder memory",
                           kDecoderMemory);
      case LZMA_MEM_ERROR:
        return "out of memory";
      case LZMA_OPTIONS_ERROR:
        return "corrupt input: unsupported options";
      default:
        return fmt::format("decompressor failed ({})", static_cast<int>(ret));
    }
  }

  int level_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_xz(const Configuration& c) {
  return std::make_unique<Xz>(static_cast<int>(int_setting("xz", c, "level", 6, 0, 9)));
}

}  // namespace dudley::codec
