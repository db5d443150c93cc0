// DEFLATE in its three wrappings: zlib (RFC 1950), gzip (RFC 1952) and raw (RFC 1951).
//
// Coded with libdeflate rather than zlib: chunks and ASDF blocks are whole buffers in
// memory, which is the case libdeflate is made for, and on 256 MiB of smooth float64 here it
// compresses 4.5x faster than zlib at the same level (level 6: ratio 0.821 against zlib's
// 0.823) and decompresses 1.7x faster. Its streams are plain DEFLATE, read by any zlib.
#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <memory>

#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr int kMaxLevel = 9;

struct CompressorFree {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct DecompressorFree {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// A compressor holds a few hundred KiB of match-finder tables and a decompressor a few KiB;
// each thread keeps one per level instead of allocating them per chunk. Neither may be
// shared between threads.
libdeflate_compressor* thread_compressor(int level) {
  thread_local std::array<std::unique_ptr<libdeflate_compressor, CompressorFree>, kMaxLevel + 1>
      compressors;
  auto& slot = compressors[static_cast<size_t>(level)];
  if (!slot) slot.reset(libdeflate_alloc_compressor(level));
  return slot.get();
}

libdeflate_decompressor* thread_decompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorFree> decompressor;
  if (!decompressor) decompressor.reset(libdeflate_alloc_decompressor());
  return decompressor.get();
}

class Deflate final : public BytesCodec {
 public:
  enum class Wrapper { kZlib, kGzip, kRaw };
  Deflate(Wrapper wrapper, int level, size_t trailing)
      : wrapper_(wrapper), level_(level), trailing_(trailing) {}

  std::string name() const override {
    return wrapper_ == Wrapper::kZlib ? "zlib" : wrapper_ == Wrapper::kGzip ? "gzip" : "deflate";
  }
  Configuration configuration() const override {
    Configuration c = {{"level", level_}};
    if (trailing_ > 0) c["trailing_bytes"] = trailing_;
    return c;
  }

  void encode_into(ByteView in, Bytes& out) const override {
    libdeflate_compressor* c = thread_compressor(level_);
    if (!c) fail("cannot start the compressor (out of memory)");
    out.resize(bound(c, in.size()));
    const size_t written = compress(c, in, out);
    if (written == 0) fail("compressor failed: the output exceeds its bound");
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    libdeflate_decompressor* d = thread_decompressor();
    if (!d) fail("cannot start the decompressor (out of memory)");
    size_t used = 0, written = 0;
    for (;;) {
      size_t member_in = 0, member_out = 0;
      const libdeflate_result r =
          decompress(d, in.subspan(used), out.subspan(written), &member_in, &member_out);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return std::nullopt;
      // libdeflate does not tell a cut-off stream from a corrupt one: both are bad data.
      if (r != LIBDEFLATE_SUCCESS) fail("corrupt or truncated input");
      used += member_in;
      written += member_out;
      if (used == in.size()) return written;
      // Apache Avro's Python writer keeps three bytes of zlib's checksum after the stream.
      if (wrapper_ == Wrapper::kRaw && in.size() - used <= trailing_) return written;
      // gzip allows several members one after another (`cat a.gz b.gz`).
      if (wrapper_ != Wrapper::kGzip) {
        fail(fmt::format("{} bytes after the end of the compressed stream", in.size() - used));
      }
    }
  }

 private:
  size_t bound(libdeflate_compressor* c, size_t n) const {
    switch (wrapper_) {
      case Wrapper::kZlib:
        return libdeflate_zlib_compress_bound(c, n);
      case Wrapper::kGzip:
        return libdeflate_gzip_compress_bound(c, n);
      case Wrapper::kRaw:
        break;
    }
    return libdeflate_deflate_compress_bound(c, n);
  }

  size_t compress(libdeflate_compressor* c, ByteView in, Bytes& out) const {
    switch (wrapper_) {
      case Wrapper::kZlib:
        return libdeflate_zlib_compress(c, in.data(), in.size(), out.data(), out.size());
      case Wrapper::kGzip:
        return libdeflate_gzip_compress(c, in.data(), in.size(), out.data(), out.size());
      case Wrapper::kRaw:
        break;
    }
    return libdeflate_deflate_compress(c, in.data(), in.size(), out.data(), out.size());
  }

  libdeflate_result decompress(libdeflate_decompressor* d, ByteView in, MutableByteView out,
                               size_t* in_used, size_t* out_written) const {
    switch (wrapper_) {
      case Wrapper::kZlib:
        return libdeflate_zlib_decompress_ex(d, in.data(), in.size(), out.data(), out.size(),
                                             in_used, out_written);
      case Wrapper::kGzip:
        return libdeflate_gzip_decompress_ex(d, in.data(), in.size(), out.data(), out.size(),
                                             in_used, out_written);
      case Wrapper::kRaw:
        break;
    }
    return libdeflate_deflate_decompress_ex(d, in.data(), in.size(), out.data(), out.size(),
                                            in_used, out_written);
  }

  Wrapper wrapper_;
  int level_;
  size_t trailing_;  // bytes allowed after a raw stream (ignored)
};

}  // namespace

std::unique_ptr<BytesCodec> make_deflate(const std::string& name, const Configuration& c) {
  // 0-9 as zlib and Zarr count them (libdeflate's 10-12 would make settings other Zarr
  // implementations refuse).
  const int level = static_cast<int>(int_setting(name, c, "level", 6, 0, 9));
  const auto wrapper = name == "zlib"   ? Deflate::Wrapper::kZlib
                       : name == "gzip" ? Deflate::Wrapper::kGzip
                                        : Deflate::Wrapper::kRaw;
  // Raw streams may be followed by up to `trailing_bytes` bytes that are not read (Avro
  // containers from Apache Avro's Python writer end each block with 3).
  const auto trailing = static_cast<size_t>(int_setting(name, c, "trailing_bytes", 0, 0, 4));
  return std::make_unique<Deflate>(wrapper, level, trailing);
}

}  // namespace dudley::codec
