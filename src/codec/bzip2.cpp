// bzip2 with libbz2 (ASDF's "bzp2" blocks, numcodecs' BZ2).
#include <bzlib.h>

#include <algorithm>

#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr size_t kStep = size_t{1} << 30;  // libbz2 counts in unsigned int

class Bzip2 final : public BytesCodec {
 public:
  explicit Bzip2(int level) : level_(level) {}
  std::string name() const override { return "bz2"; }
  Configuration configuration() const override { return {{"level", level_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    bz_stream s{};
    if (BZ2_bzCompressInit(&s, level_, 0, 0) != BZ_OK) fail("cannot start the compressor");
    out.resize(in.size() + in.size() / 100 + 600);
    size_t fed = 0, written = 0;
    int ret = BZ_RUN_OK;
    while (ret != BZ_STREAM_END) {
      const size_t feed = std::min(kStep, in.size() - fed);
      s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + fed));
      s.avail_in = static_cast<unsigned>(feed);
      if (out.size() - written < 1024) out.resize(out.size() * 2);
      const size_t room = std::min(kStep, out.size() - written);
      s.next_out = reinterpret_cast<char*>(out.data() + written);
      s.avail_out = static_cast<unsigned>(room);
      const bool last = fed + feed == in.size();
      ret = BZ2_bzCompress(&s, last ? BZ_FINISH : BZ_RUN);
      fed += feed - s.avail_in;
      written += room - s.avail_out;
      if (ret < 0) {
        BZ2_bzCompressEnd(&s);
        fail("compressor failed");
      }
    }
    BZ2_bzCompressEnd(&s);
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    size_t used = 0, written = 0;
    // Streams may follow one another (as `cat a.bz2 b.bz2`, which bzip2 -d accepts).
    do {
      bz_stream s{};
      if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) fail("cannot start the decompressor");
      struct End {
        bz_stream* s;
        ~End() { BZ2_bzDecompressEnd(s); }
      } end{&s};
      for (;;) {
        const size_t feed = std::min(kStep, in.size() - used);
        s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + used));
        s.avail_in = static_cast<unsigned>(feed);
        char spare[1];
        const bool full = written == out.size();
        const size_t room = full ? 1 : std::min(kStep, out.size() - written);
        s.next_out = full ? spare : reinterpret_cast<char*>(out.data() + written);
        s.avail_out = static_cast<unsigned>(room);
        const int ret = BZ2_bzDecompress(&s);
        const size_t consumed = feed - s.avail_in;
        const size_t produced = room - s.avail_out;
        used += consumed;
        if (full && produced > 0) return std::nullopt;
        written += produced;
        if (ret == BZ_STREAM_END) break;
        if (ret == BZ_DATA_ERROR_MAGIC) fail("corrupt input: not a bzip2 stream");
        if (ret == BZ_DATA_ERROR) fail("corrupt input: bad data or checksum");
        if (ret == BZ_MEM_ERROR) fail("out of memory");
        if (ret != BZ_OK) fail(fmt::format("decompressor failed ({})", ret));
        if (consumed == 0 && produced == 0) {
          if (used == in.size()) fail("truncated input: the compressed stream ends early");
          return std::nullopt;
        }
      }
    } while (used < in.size());
    return written;
  }

 private:
  int level_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_bzip2(const Configuration& c) {
  return std::make_unique<Bzip2>(static_cast<int>(int_setting("bz2", c, "level", 9, 1, 9)));
}

}  // namespace dudley::codec
