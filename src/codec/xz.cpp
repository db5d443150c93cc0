// xz (LZMA2 in the .xz container) with liblzma: Avro containers' "xz" codec, as Java's
// XZCompressorOutputStream and Python's lzma module write it (preset 6, CRC-64 check), and
// numcodecs' LZMA ("numcodecs.lzma" in zarr-python 3's metadata, "lzma" in v2), whose
// settings are Python's lzma module's: format (0 any, 1 xz, 2 the legacy .lzma "alone"),
// check and preset.
#include <lzma.h>

#include <algorithm>

#include "settings.hpp"

namespace dudley::codec {
namespace {

// The decoder's memory, whatever a stream's header asks for: preset 9's dictionary (64 MiB)
// fits with room; a stream claiming more is refused rather than obeyed.
constexpr uint64_t kDecoderMemory = uint64_t{256} << 20;

// Python's lzma.FORMAT_* numbers, which numcodecs' settings are.
enum Container : int { kAny = 0, kXzContainer = 1, kAlone = 2 };

class Xz final : public BytesCodec {
 public:
  Xz(int level, lzma_check check, Container container, std::string name)
      : level_(level), check_(check), container_(container), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Configuration configuration() const override {
    if (name_ == "xz") return {{"level", level_}};
    return {{"format", static_cast<int>(container_)},
            {"check", static_cast<int>(check_)},
            {"preset", level_}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    if (container_ == kAlone) return encode_alone(in, out);
    out.resize(lzma_stream_buffer_bound(in.size()));
    size_t written = 0;
    const lzma_ret ret = lzma_easy_buffer_encode(
        static_cast<uint32_t>(level_), check_, nullptr, reinterpret_cast<const uint8_t*>(in.data()),
        in.size(), reinterpret_cast<uint8_t*>(out.data()), &written, out.size());
    if (ret != LZMA_OK) fail(fmt::format("compressor failed ({})", static_cast<int>(ret)));
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    lzma_stream s = LZMA_STREAM_INIT;
    // Streams may follow one another (as `cat a.xz b.xz`, which xz -d accepts).
    const lzma_ret started = container_ == kAlone ? lzma_alone_decoder(&s, kDecoderMemory)
                             : container_ == kAny
                                 ? lzma_auto_decoder(&s, kDecoderMemory, LZMA_CONCATENATED)
                                 : lzma_stream_decoder(&s, kDecoderMemory, LZMA_CONCATENATED);
    if (started != LZMA_OK) fail("cannot start the decompressor");
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
  // The legacy .lzma container (Python's FORMAT_ALONE): LZMA1 with the preset's options.
  void encode_alone(ByteView in, Bytes& out) const {
    lzma_options_lzma options;
    if (lzma_lzma_preset(&options, static_cast<uint32_t>(level_))) fail("unknown preset");
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_alone_encoder(&s, &options) != LZMA_OK) fail("cannot start the compressor");
    struct End {
      lzma_stream* s;
      ~End() { lzma_end(s); }
    } end{&s};
    out.resize(in.size() + in.size() / 8 + 4096);
    s.next_in = reinterpret_cast<const uint8_t*>(in.data());
    s.avail_in = in.size();
    for (;;) {
      s.next_out = reinterpret_cast<uint8_t*>(out.data()) + s.total_out;
      s.avail_out = out.size() - s.total_out;
      const lzma_ret ret = lzma_code(&s, LZMA_FINISH);
      if (ret == LZMA_STREAM_END) break;
      if (ret != LZMA_OK) fail(fmt::format("compressor failed ({})", static_cast<int>(ret)));
      out.resize(out.size() * 2);  // incompressible data: the output outgrew its guess
    }
    out.resize(s.total_out);
  }

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
  lzma_check check_;
  Container container_;
  std::string name_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_xz(const Configuration& c) {
  return std::make_unique<Xz>(static_cast<int>(int_setting("xz", c, "level", 6, 0, 9)),
                              LZMA_CHECK_CRC64, kXzContainer, "xz");
}

std::unique_ptr<BytesCodec> make_lzma(const Configuration& c) {
  const std::string name = "numcodecs.lzma";
  only_settings(name, c, {"format", "check", "preset", "filters"});
  if (c.is_object() && c.contains("filters") && !c["filters"].is_null()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: a filter chain ({}) is not read by this build (presets are)", name,
                            c["filters"].dump()));
  }
  const auto container = static_cast<int>(int_setting(name, c, "format", kXzContainer, 0, 3));
  if (container == 3) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: format 3 (raw, described by a filter chain) is not read by this "
                            "build",
                            name));
  }
  // Python's lzma: check -1 is the container's default (CRC-64 for xz); the others are
  // liblzma's numbers.
  const auto check = static_cast<int>(int_setting(name, c, "check", -1, -1, 10));
  if (check != -1 && check != LZMA_CHECK_NONE && check != LZMA_CHECK_CRC32 &&
      check != LZMA_CHECK_CRC64 && check != LZMA_CHECK_SHA256) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: check must be -1, 0, 1, 4 or 10, not {}", name, check));
  }
  const bool preset_given = c.is_object() && c.contains("preset") && !c["preset"].is_null();
  const auto preset = preset_given ? static_cast<int>(int_setting(name, c, "preset", 6, 0, 9)) : 6;
  return std::make_unique<Xz>(preset,
                              check == -1 ? LZMA_CHECK_CRC64 : static_cast<lzma_check>(check),
                              static_cast<Container>(container), name);
}

}  // namespace dudley::codec
