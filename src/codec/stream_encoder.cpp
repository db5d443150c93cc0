// Streaming encoders with zlib and libbz2 (their streaming APIs; libdeflate, which the
// whole-buffer zlib codec uses, has none).
#include "dudley/codec/stream_encoder.hpp"

#include <bzlib.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <vector>

#include "dudley/core/thread_pool.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

[[noreturn]] void fail(const std::string& codec, const std::string& what) {
  throw Error(ErrorCategory::kIo, fmt::format("{}: {}", codec, what));
}

// Pieces smaller than this are not split between cores: a segment costs a flush (a few
// bytes) and a restarted history.
constexpr size_t kMinSegment = size_t{1} << 20;
// zlib counts in unsigned int.
constexpr size_t kStep = size_t{1} << 30;

// One zlib stream from raw deflate segments compressed independently: each ends with a sync
// flush (an empty stored block, so the next starts on a byte boundary), finish() adds the
// last block and the Adler-32 of all the data, combined from the segments' own.
class ZlibStream final : public StreamEncoder {
 public:
  explicit ZlibStream(int level) : level_(level) {}

  void update(ByteView in, const Sink& sink) override {
    if (!started_) {
      // CMF: deflate with a 32 KiB window; FLG: the level's class, and a check making the
      // two bytes, big-endian, a multiple of 31 (RFC 1950).
      const unsigned cmf = 0x78;
      const unsigned level_class = level_ <= 1 ? 0 : level_ <= 5 ? 1 : level_ == 6 ? 2 : 3;
      unsigned flg = level_class << 6;
      flg += 31 - (cmf * 256 + flg) % 31;
      const std::array<std::byte, 2> header{std::byte(cmf), std::byte(flg)};
      sink(header);
      started_ = true;
    }
    if (in.empty()) return;
    auto& pool = ThreadPool::shared();
    const size_t segments = std::clamp<size_t>(in.size() / kMinSegment, 1, pool.helpers() + 1);
    const size_t each = (in.size() + segments - 1) / segments;
    if (outputs_.size() < segments) outputs_.resize(segments);
    std::vector<uLong> adlers(segments);
    std::vector<size_t> lengths(segments);
    pool.parallel_for(segments, [&](size_t k) {
      const ByteView part = in.subspan(k * each, std::min(each, in.size() - k * each));
      lengths[k] = part.size();
      adlers[k] = adler(part);
      deflate_segment(part, outputs_[k]);
    });
    for (size_t k = 0; k < segments; ++k) {
      adler_ = adler32_combine(adler_, adlers[k], static_cast<z_off_t>(lengths[k]));
      sink(outputs_[k]);
    }
  }

  void finish(const Sink& sink) override {
    if (!started_) update({}, sink);
    // A final fixed-Huffman block holding nothing (what deflate writes when finishing a
    // stream with no data left), then the Adler-32, big-endian.
    const std::array<std::byte, 6> tail{std::byte{0x03},
                                        std::byte{0x00},
                                        std::byte(adler_ >> 24),
                                        std::byte((adler_ >> 16) & 0xff),
                                        std::byte((adler_ >> 8) & 0xff),
                                        std::byte(adler_ & 0xff)};
    sink(tail);
  }

 private:
  static uLong adler(ByteView part) {
    uLong a = adler32(0, nullptr, 0);
    for (size_t at = 0; at < part.size(); at += kStep) {
      const size_t n = std::min(kStep, part.size() - at);
      a = adler32(a, reinterpret_cast<const Bytef*>(part.data() + at), static_cast<uInt>(n));
    }
    return a;
  }

  void deflate_segment(ByteView part, Bytes& out) const {
    z_stream s{};
    // Raw deflate (negative window bits): the zlib header and trailer are this class's.
    if (deflateInit2(&s, level_, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      fail("zlib", "cannot start the compressor");
    }
    struct End {
      z_stream* s;
      ~End() { deflateEnd(s); }
    } end{&s};
    out.resize(deflateBound(&s, static_cast<uLong>(part.size())) + 16);
    size_t fed = 0, written = 0;
    for (;;) {
      const size_t feed = std::min(kStep, part.size() - fed);
      s.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(part.data() + fed));
      s.avail_in = static_cast<uInt>(feed);
      if (out.size() - written < 64) out.resize(out.size() * 2);
      const size_t room = std::min(kStep, out.size() - written);
      s.next_out = reinterpret_cast<Bytef*>(out.data() + written);
      s.avail_out = static_cast<uInt>(room);
      const bool last = fed + feed == part.size();
      const int ret = deflate(&s, last ? Z_SYNC_FLUSH : Z_NO_FLUSH);
      if (ret != Z_OK && ret != Z_BUF_ERROR) fail("zlib", "compressor failed");
      fed += feed - s.avail_in;
      written += room - s.avail_out;
      // Done when everything is in and the flush fitted (room was left over).
      if (last && s.avail_in == 0 && s.avail_out != 0) break;
    }
    out.resize(written);
  }

  int level_;
  bool started_ = false;
  uLong adler_ = adler32(0, nullptr, 0);
  std::vector<Bytes> outputs_;  // one per segment, reused piece after piece
};

// One bzip2 stream: libbz2 compresses 100-900 kB blocks in order, each as it fills.
class Bzip2Stream final : public StreamEncoder {
 public:
  explicit Bzip2Stream(int level) {
    if (BZ2_bzCompressInit(&s_, level, 0, 0) != BZ_OK) fail("bz2", "cannot start the compressor");
    buffer_.resize(size_t{1} << 20);
  }
  ~Bzip2Stream() override { BZ2_bzCompressEnd(&s_); }
  Bzip2Stream(const Bzip2Stream&) = delete;
  Bzip2Stream& operator=(const Bzip2Stream&) = delete;

  void update(ByteView in, const Sink& sink) override {
    for (size_t at = 0; at < in.size();) {
      const size_t n = std::min(kStep, in.size() - at);
      s_.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + at));
      s_.avail_in = static_cast<unsigned>(n);
      while (s_.avail_in > 0) step(BZ_RUN, sink);
      at += n;
    }
  }

  void finish(const Sink& sink) override {
    while (step(BZ_FINISH, sink) != BZ_STREAM_END) {
    }
  }

 private:
  int step(int action, const Sink& sink) {
    s_.next_out = reinterpret_cast<char*>(buffer_.data());
    s_.avail_out = static_cast<unsigned>(buffer_.size());
    const int ret = BZ2_bzCompress(&s_, action);
    if (ret < 0) fail("bz2", "compressor failed");
    const size_t n = buffer_.size() - s_.avail_out;
    if (n > 0) sink(ByteView(buffer_.data(), n));
    return ret;
  }

  bz_stream s_{};
  Bytes buffer_;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder(const std::string& name,
                                                   const Configuration& configuration) {
  if (name == "zlib") {
    return std::make_unique<ZlibStream>(
        static_cast<int>(int_setting(name, configuration, "level", 6, 0, 9)));
  }
  if (name == "bz2") {
    return std::make_unique<Bzip2Stream>(
        static_cast<int>(int_setting(name, configuration, "level", 9, 1, 9)));
  }
  throw Error(ErrorCategory::kUsage,
              fmt::format("codec '{}' has no streaming encoder (zlib and bz2 have)", name));
}

}  // namespace dudley::codec
