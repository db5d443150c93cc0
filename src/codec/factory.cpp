// Codecs by name: the one place that knows every codec, so a format maps its spelling onto a
// name and settings here and never includes a codec.
#include <fmt/format.h>

#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"
#include "settings.hpp"

namespace dudley::codec {

std::unique_ptr<BytesCodec> make_bytes_codec(const std::string& name, const Configuration& c) {
  if (!c.is_null() && !c.is_object()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the configuration must be an object, not {}", name, c.dump()));
  }
  if (name == "zlib" || name == "gzip" || name == "deflate") return make_deflate(name, c);
  if (name == "bz2") return make_bzip2(c);
  if (name == "lz4") return make_lz4_block(c);
  if (name == "lz4_frame") return make_lz4_frame(c);
  if (name == "numcodecs.lz4") return make_lz4_sized(c);
  if (name == "lz4_framed") return make_lz4_framed(c);
  if (name == "zstd") return make_zstd(c);
  if (name == "blosc") return make_blosc(c);
  if (name == "crc32c") return make_crc32c_codec(c);
  if (name == "numcodecs.shuffle") return make_shuffle_bytes(c);
  if (name == "numcodecs.delta") return make_delta(c);
  if (name == "numcodecs.fixedscaleoffset") return make_fixed_scale_offset(c);
  if (name == "snappy") return make_snappy(c);
  if (name == "xz") return make_xz(c);
  if (name == "numcodecs.lzma") return make_lzma(c);
  if (name == "numcodecs.crc32" || name == "numcodecs.adler32" || name == "numcodecs.crc32c" ||
      name == "numcodecs.fletcher32" || name == "numcodecs.jenkins_lookup3") {
    return make_checksum32(name, c);
  }
  if (name == "numcodecs.astype" || name == "numcodecs.quantize") return make_as_type(name, c);
  if (name == "numcodecs.packbits") return make_packbits(c);
  if (name == "numcodecs.zfpy") return make_zfpy(c);
  if (name == "numcodecs.pcodec") {
    throw Error(ErrorCategory::kUsage,
                "numcodecs.pcodec is not read by this build: pcodec has no C or C++ library in "
                "Debian (read such stores with zarr-python and the pcodec package)");
  }
  throw Error(
      ErrorCategory::kUsage,
      fmt::format("unknown codec '{}' (bytes codecs: zlib, gzip, deflate, bz2, lz4, "
                  "lz4_frame, lz4_framed, numcodecs.lz4, numcodecs.shuffle, numcodecs.delta, "
                  "numcodecs.fixedscaleoffset, numcodecs.astype, numcodecs.quantize, "
                  "numcodecs.packbits, numcodecs.crc32, numcodecs.adler32, numcodecs.crc32c, "
                  "numcodecs.fletcher32, numcodecs.jenkins_lookup3, numcodecs.lzma, "
                  "numcodecs.zfpy, zstd, blosc, snappy, xz, crc32c)",
                  name));
}

std::unique_ptr<ArrayCodec> make_array_codec(const std::string& name, const Configuration& c) {
  if (!c.is_null() && !c.is_object()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the configuration must be an object, not {}", name, c.dump()));
  }
  if (name == "shuffle") return make_shuffle(c);
  if (name == "bitshuffle") return make_bitshuffle(c);
  if (name == "byteorder") return make_byteorder(c);
  if (name == "transpose") return make_transpose(c);
  throw Error(
      ErrorCategory::kUsage,
      fmt::format("unknown array codec '{}' (shuffle, bitshuffle, byteorder, transpose)", name));
}

}  // namespace dudley::codec
