// Zstandard with libzstd. Contexts are kept per thread: creating one costs more than
// compressing a small chunk.
#include <zstd.h>
#include <zstd_errors.h>

#include "settings.hpp"

namespace dudley::codec {
namespace {

struct Contexts {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ~Contexts() {
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
  }
};
Contexts& contexts() {
  thread_local Contexts here;
  return here;
}

class Zstd final : public BytesCodec {
 public:
  Zstd(int level, bool checksum) : level_(level), checksum_(checksum) {}
  std::string name() const override { return "zstd"; }
  Configuration configuration() const override {
    return {{"level", level_}, {"checksum", checksum_}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    ZSTD_CCtx* c = contexts().c;
    if (!c) fail("cannot start the compressor (out of memory)");
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level_);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum_ ? 1 : 0);
    out.resize(ZSTD_compressBound(in.size()));
    const size_t written = ZSTD_compress2(c, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(written)) fail(ZSTD_getErrorName(written));
    out.resize(written);
  }

  std::optional<uint64_t> declared_size(ByteView in) const override {
    // Every frame's declared size, summed; nullopt when one does not declare it (or the
    // input is not frames: decode_to says so).
    uint64_t total = 0;
    for (size_t at = 0; at < in.size();) {
      const size_t frame = ZSTD_findFrameCompressedSize(in.data() + at, in.size() - at);
      if (ZSTD_isError(frame) || frame == 0) return std::nullopt;
      const unsigned long long size = ZSTD_getFrameContentSize(in.data() + at, in.size() - at);
      if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return std::nullopt;
      total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
      at += frame;
    }
    return total;
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    // A frame that declares its size says at once whether it fits.
    const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR) fail("corrupt input: not a zstd frame");
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > out.size()) return std::nullopt;
    ZSTD_DCtx* d = contexts().d;
    if (!d) fail("cannot start the decompressor (out of memory)");
    const size_t got = ZSTD_decompressDCtx(d, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(got)) {
      if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall) return std::nullopt;
      fail(fmt::format("corrupt input: {}", ZSTD_getErrorName(got)));
    }
    return got;
  }

 private:
  int level_;
  bool checksum_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_zstd(const Configuration& c) {
  return std::make_unique<Zstd>(
      static_cast<int>(int_setting("zstd", c, "level", 3, ZSTD_minCLevel(), ZSTD_maxCLevel())),
      bool_setting("zstd", c, "checksum", false));
}

}  // namespace dudley::codec
