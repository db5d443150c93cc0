// DEFLATE in its three wrappings: zlib (RFC 1950), gzip (RFC 1952) and raw (RFC 1951), with
// zlib. One class: they differ only in the window-bits argument.
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "settings.hpp"

namespace dudley::codec {
namespace {

// zlib counts in uInt: feed and drain at most this much per call.
constexpr size_t kStep = size_t{1} << 30;

class Deflate final : public BytesCodec {
 public:
  enum class Wrapper { kZlib, kGzip, kRaw };
  Deflate(Wrapper wrapper, int level) : wrapper_(wrapper), level_(level) {}

  std::string name() const override {
    return wrapper_ == Wrapper::kZlib ? "zlib" : wrapper_ == Wrapper::kGzip ? "gzip" : "deflate";
  }
  Configuration configuration() const override { return {{"level", level_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    z_stream z{};
    if (deflateInit2(&z, level_, Z_DEFLATED, window_bits(), 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      fail("cannot start the compressor (out of memory)");
    }
    out.resize(deflateBound(&z, static_cast<uLong>(in.size())) + 64);
    size_t fed = 0, written = 0;
    int ret = Z_OK;
    while (ret != Z_STREAM_END) {
      const size_t feed = std::min(kStep, in.size() - fed);
      z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data() + fed));
      z.avail_in = static_cast<uInt>(feed);
      if (out.size() - written < 64) out.resize(out.size() * 2);
      const size_t room = std::min(kStep, out.size() - written);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + written);
      z.avail_out = static_cast<uInt>(room);
      const bool last = fed + feed == in.size();
      ret = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      fed += feed - z.avail_in;
      written += room - z.avail_out;
      if (ret == Z_STREAM_ERROR) {
        deflateEnd(&z);
        fail("compressor failed");
      }
    }
    deflateEnd(&z);
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    z_stream z{};
    if (inflateInit2(&z, window_bits()) != Z_OK) fail("cannot start the decompressor");
    struct End {
      z_stream* z;
      ~End() { inflateEnd(z); }
    } end{&z};
    size_t used = 0, written = 0;
    for (;;) {
      const size_t feed = std::min(kStep, in.size() - used);
      z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data() + used));
      z.avail_in = static_cast<uInt>(feed);
      std::byte spare[1];
      const bool full = written == out.size();
      // With the output full, one more byte of room tells whether the stream has more.
      const size_t room = full ? 1 : std::min(kStep, out.size() - written);
      z.next_out = reinterpret_cast<Bytef*>(full ? spare : out.data() + written);
      z.avail_out = static_cast<uInt>(room);
      const int ret = inflate(&z, Z_NO_FLUSH);
      used += feed - z.avail_in;
      const size_t produced = room - z.avail_out;
      if (full && produced > 0) return std::nullopt;
      written += produced;
      if (ret == Z_STREAM_END) {
        // gzip allows several members one after another (`cat a.gz b.gz`).
        if (wrapper_ == Wrapper::kGzip && used < in.size()) {
          inflateReset(&z);
          continue;
        }
        if (used != in.size()) {
          fail(fmt::format("{} bytes after the end of the compressed stream", in.size() - used));
        }
        return written;
      }
      if (ret == Z_DATA_ERROR) fail(fmt::format("corrupt input: {}", z.msg ? z.msg : "bad data"));
      if (ret == Z_MEM_ERROR) fail("out of memory");
      if (ret == Z_NEED_DICT) fail("the stream needs a preset dictionary");
      if (ret == Z_BUF_ERROR) {  // no progress possible
        if (used == in.size()) fail("truncated input: the compressed stream ends early");
        return std::nullopt;
      }
    }
  }

 private:
  int window_bits() const {
    return wrapper_ == Wrapper::kZlib ? 15 : wrapper_ == Wrapper::kGzip ? 15 + 16 : -15;
  }
  Wrapper wrapper_;
  int level_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_deflate(const std::string& name, const Configuration& c) {
  const int level = static_cast<int>(int_setting(name, c, "level", 6, 0, 9));
  const auto wrapper = name == "zlib"   ? Deflate::Wrapper::kZlib
                       : name == "gzip" ? Deflate::Wrapper::kGzip
                                        : Deflate::Wrapper::kRaw;
  return std::make_unique<Deflate>(wrapper, level);
}

}  // namespace dudley::codec
