// LZ4 with liblz4: the raw block format (no size, no checksum: formats frame it themselves,
// as ASDF and numcodecs do) and the LZ4 frame format (magic, sizes, checksums).
#include <lz4.h>
#include <lz4frame.h>

#include <algorithm>

#include "settings.hpp"

namespace dudley::codec {
namespace {

class Lz4Block final : public BytesCodec {
 public:
  explicit Lz4Block(int acceleration) : acceleration_(acceleration) {}
  std::string name() const override { return "lz4"; }
  Configuration configuration() const override { return {{"acceleration", acceleration_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    if (in.size() > LZ4_MAX_INPUT_SIZE) {
      fail(fmt::format("a block holds at most {} bytes, not {}", LZ4_MAX_INPUT_SIZE, in.size()));
    }
    const int n = static_cast<int>(in.size());
    out.resize(static_cast<size_t>(LZ4_compressBound(n)));
    const int written = LZ4_compress_fast(reinterpret_cast<const char*>(in.data()),
                                          reinterpret_cast<char*>(out.data()), n,
                                          static_cast<int>(out.size()), acceleration_);
    if (written <= 0 && n > 0) fail("compressor failed");
    out.resize(static_cast<size_t>(std::max(written, 0)));
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() > static_cast<size_t>(INT32_MAX)) fail("a block of more than 2 GiB");
    const int capacity = static_cast<int>(std::min<size_t>(out.size(), INT32_MAX));
    const auto* src = reinterpret_cast<const char*>(in.data());
    auto* dst = reinterpret_cast<char*>(out.data());
    const int n = static_cast<int>(in.size());
    const int got = LZ4_decompress_safe(src, dst, n, capacity);
    if (got >= 0) return static_cast<size_t>(got);
    // The block does not say its size: an error is either corrupt data or more output than
    // the room. Decoding just the room tells them apart.
    if (capacity > 0 && LZ4_decompress_safe_partial(src, dst, n, capacity, capacity) == capacity) {
      return std::nullopt;
    }
    fail("corrupt input: not a valid LZ4 block");
  }

 private:
  int acceleration_;
};

// numcodecs' LZ4 (Zarr v2 "lz4", v3 "numcodecs.lz4"): the decoded size as 4 little-endian
// bytes, then one LZ4 block.
class Lz4Sized final : public BytesCodec {
 public:
  explicit Lz4Sized(int acceleration) : block_(acceleration), acceleration_(acceleration) {}
  std::string name() const override { return "numcodecs.lz4"; }
  Configuration configuration() const override { return {{"acceleration", acceleration_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    if (in.size() > LZ4_MAX_INPUT_SIZE) {
      fail(fmt::format("a block holds at most {} bytes, not {}", LZ4_MAX_INPUT_SIZE, in.size()));
    }
    const int n = static_cast<int>(in.size());
    out.resize(4 + static_cast<size_t>(LZ4_compressBound(n)));
    for (int i = 0; i < 4; ++i) {
      out[static_cast<size_t>(i)] = static_cast<std::byte>((in.size() >> (8 * i)) & 0xff);
    }
    const int written = LZ4_compress_fast(reinterpret_cast<const char*>(in.data()),
                                          reinterpret_cast<char*>(out.data() + 4), n,
                                          static_cast<int>(out.size() - 4), acceleration_);
    if (written <= 0 && n > 0) fail("compressor failed");
    out.resize(4 + static_cast<size_t>(std::max(written, 0)));
  }

  std::optional<uint64_t> declared_size(ByteView in) const override {
    if (in.size() < 4) return std::nullopt;
    uint64_t size = 0;
    for (int i = 0; i < 4; ++i)
      size |= static_cast<uint64_t>(in[static_cast<size_t>(i)]) << (8 * i);
    return size;
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() < 4) fail("truncated input: no size header");
    uint64_t size = 0;
    for (int i = 0; i < 4; ++i)
      size |= static_cast<uint64_t>(in[static_cast<size_t>(i)]) << (8 * i);
    if (size > out.size()) return std::nullopt;  // more than the room: nothing decoded
    const auto got = block_.decode_to(in.subspan(4), out.first(static_cast<size_t>(size)));
    if (!got || *got != size) {
      fail(fmt::format("corrupt input: the header says {} bytes, the block holds {}", size,
                       got ? fmt::format("{}", *got) : std::string("more")));
    }
    return *got;
  }

 private:
  Lz4Block block_;
  int acceleration_;
};

class Lz4Frame final : public BytesCodec {
 public:
  explicit Lz4Frame(int level) : level_(level) {}
  std::string name() const override { return "lz4_frame"; }
  Configuration configuration() const override { return {{"level", level_}}; }

  void encode_into(ByteView in, Bytes& out) const override {
    LZ4F_preferences_t prefs{};
    prefs.compressionLevel = level_;
    prefs.frameInfo.contentSize = in.size();  // lets a reader check the size up front
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    out.resize(LZ4F_compressFrameBound(in.size(), &prefs));
    const size_t written = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
    if (LZ4F_isError(written)) fail(LZ4F_getErrorName(written));
    out.resize(written);
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    LZ4F_dctx* ctx = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
      fail("cannot start the decompressor");
    }
    struct Free {
      LZ4F_dctx* ctx;
      ~Free() { LZ4F_freeDecompressionContext(ctx); }
    } free_ctx{ctx};
    size_t used = 0, written = 0;
    size_t hint = 1;
    while (used < in.size()) {
      std::byte spare[1];
      const bool full = written == out.size();
      size_t room = full ? 1 : out.size() - written;
      size_t feed = in.size() - used;
      hint = LZ4F_decompress(ctx, full ? spare : out.data() + written, &room, in.data() + used,
                             &feed, nullptr);
      if (LZ4F_isError(hint)) fail(fmt::format("corrupt input: {}", LZ4F_getErrorName(hint)));
      used += feed;
      if (full && room > 0) return std::nullopt;
      written += room;
      if (feed == 0 && room == 0) {
        if (full) return std::nullopt;
        break;
      }
      // hint 0: a frame ended; another may follow (as the lz4 tool writes them).
    }
    if (hint != 0) fail("truncated input: the frame ends early");
    return written;
  }

 private:
  int level_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_lz4_block(const Configuration& c) {
  return std::make_unique<Lz4Block>(
      static_cast<int>(int_setting("lz4", c, "acceleration", 1, 1, 65537)));
}

std::unique_ptr<BytesCodec> make_lz4_sized(const Configuration& c) {
  return std::make_unique<Lz4Sized>(
      static_cast<int>(int_setting("numcodecs.lz4", c, "acceleration", 1, 1, 65537)));
}

std::unique_ptr<BytesCodec> make_lz4_frame(const Configuration& c) {
  return std::make_unique<Lz4Frame>(
      static_cast<int>(int_setting("lz4_frame", c, "level", 0, -65537, 12)));
}

}  // namespace dudley::codec
