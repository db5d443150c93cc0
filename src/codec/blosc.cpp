// c-blosc 1 (the format numcodecs' Blosc and Zarr's "blosc" codec write): a 16-byte header
// saying the sizes, then blocks compressed with an inner codec after an optional shuffle.
// Only the context functions are used: they take no global lock and need no blosc_init().
#include <blosc.h>

#include <cstring>

#include "settings.hpp"

namespace dudley::codec {
namespace {

constexpr const char* kShuffleNames[] = {"noshuffle", "shuffle", "bitshuffle"};

class Blosc final : public BytesCodec {
 public:
  Blosc(std::string cname, int clevel, int shuffle, size_t typesize, size_t blocksize)
      : cname_(std::move(cname)),
        clevel_(clevel),
        shuffle_(shuffle),
        typesize_(typesize),
        blocksize_(blocksize) {}

  std::string name() const override { return "blosc"; }
  Configuration configuration() const override {
    return {{"cname", cname_},
            {"clevel", clevel_},
            {"shuffle", kShuffleNames[shuffle_]},
            {"typesize", typesize_},
            {"blocksize", blocksize_}};
  }

  void encode_into(ByteView in, Bytes& out) const override {
    if (in.size() > static_cast<size_t>(BLOSC_MAX_BUFFERSIZE)) {
      fail(fmt::format("a chunk holds at most {} bytes, not {}", BLOSC_MAX_BUFFERSIZE, in.size()));
    }
    out.resize(in.size() + BLOSC_MAX_OVERHEAD);
    const int written = blosc_compress_ctx(clevel_, shuffle_, typesize_, in.size(), in.data(),
                                           out.data(), out.size(), cname_.c_str(), blocksize_, 1);
    if (written <= 0) fail(fmt::format("compressor failed ({})", written));
    out.resize(static_cast<size_t>(written));
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    size_t declared = 0;
    if (in.size() < BLOSC_MIN_HEADER_LENGTH ||
        blosc_cbuffer_validate(in.data(), in.size(), &declared) < 0) {
      fail(fmt::format("corrupt input: not a blosc chunk of {} bytes", in.size()));
    }
    size_t cbytes = 0, blocksize = 0, nbytes = 0;
    blosc_cbuffer_sizes(in.data(), &nbytes, &cbytes, &blocksize);
    if (cbytes != in.size()) {
      fail(fmt::format("corrupt input: the header says {} bytes, the chunk has {}", cbytes,
                       in.size()));
    }
    if (declared > out.size()) return std::nullopt;
    if (declared == 0) return 0;
    const int got = blosc_decompress_ctx(in.data(), out.data(), declared, 1);
    if (got <= 0 || static_cast<size_t>(got) != declared) {
      fail(fmt::format("corrupt input: decompression failed ({})", got));
    }
    return declared;
  }

 private:
  std::string cname_;
  int clevel_;
  int shuffle_;
  size_t typesize_;
  size_t blocksize_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_blosc(const Configuration& c) {
  const std::string cname = string_setting("blosc", c, "cname", "lz4");
  if (blosc_compname_to_compcode(cname.c_str()) < 0) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("blosc: unknown inner codec '{}' (this blosc has {})", cname,
                            blosc_list_compressors()));
  }
  const int clevel = static_cast<int>(int_setting("blosc", c, "clevel", 5, 0, 9));
  int shuffle = 1;
  if (c.is_object() && c.contains("shuffle") && c["shuffle"].is_number_integer()) {
    shuffle = static_cast<int>(int_setting("blosc", c, "shuffle", 1, 0, 2));  // numcodecs
  } else {
    const std::string s = string_setting("blosc", c, "shuffle", "shuffle");
    shuffle = s == "noshuffle" ? 0 : s == "shuffle" ? 1 : s == "bitshuffle" ? 2 : -1;
    if (shuffle < 0) {
      throw Error(
          ErrorCategory::kUsage,
          fmt::format("blosc: shuffle must be noshuffle, shuffle or bitshuffle, not '{}'", s));
    }
  }
  const auto typesize = static_cast<size_t>(int_setting("blosc", c, "typesize", 1, 1, 255));
  const auto blocksize = static_cast<size_t>(int_setting("blosc", c, "blocksize", 0, 0, INT32_MAX));
  return std::make_unique<Blosc>(cname, clevel, shuffle, typesize, blocksize);
}

}  // namespace dudley::codec
