// Reading a codec's settings from its configuration object, with the range each allows.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <string>

#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"

namespace dudley::codec {

/// The integer setting `key` of `codec`, `fallback` when absent; Error(kUsage) when it is not
/// an integer in [low, high].
inline int64_t int_setting(const std::string& codec, const Configuration& c, const char* key,
                           int64_t fallback, int64_t low, int64_t high) {
  if (!c.is_object() || !c.contains(key)) return fallback;
  const Configuration& v = c[key];
  if (!v.is_number_integer() || v.get<int64_t>() < low || v.get<int64_t>() > high) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: setting '{}' must be an integer from {} to {}, not {}", codec, key,
                            low, high, v.dump()));
  }
  return v.get<int64_t>();
}

/// The string setting `key` of `codec`, `fallback` when absent.
inline std::string string_setting(const std::string& codec, const Configuration& c, const char* key,
                                  const std::string& fallback) {
  if (!c.is_object() || !c.contains(key)) return fallback;
  if (!c[key].is_string()) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: setting '{}' must be a string, not {}",
                                                   codec, key, c[key].dump()));
  }
  return c[key].get<std::string>();
}

/// The boolean setting `key` of `codec`, `fallback` when absent.
inline bool bool_setting(const std::string& codec, const Configuration& c, const char* key,
                         bool fallback) {
  if (!c.is_object() || !c.contains(key)) return fallback;
  if (!c[key].is_boolean()) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: setting '{}' must be true or false, not {}",
                                                   codec, key, c[key].dump()));
  }
  return c[key].get<bool>();
}

/// Refuses a setting of `codec` not among `known` (a v2 codec's "id" is its name, allowed).
inline void only_settings(const std::string& codec, const Configuration& c,
                          std::initializer_list<const char*> known) {
  if (!c.is_object()) return;
  for (const auto& [key, value] : c.items()) {
    bool ok = key == "id";
    for (const char* k : known) ok = ok || key == k;
    if (!ok)
      throw Error(ErrorCategory::kUsage, fmt::format("{}: unknown setting '{}'", codec, key));
  }
}

// Factories of the codecs, one per file (codec/factory.cpp dispatches by name).
std::unique_ptr<BytesCodec> make_deflate(const std::string& name, const Configuration& c);
std::unique_ptr<BytesCodec> make_bzip2(const Configuration& c);
std::unique_ptr<BytesCodec> make_lz4_block(const Configuration& c);
std::unique_ptr<BytesCodec> make_lz4_sized(const Configuration& c);
std::unique_ptr<BytesCodec> make_lz4_frame(const Configuration& c);
std::unique_ptr<BytesCodec> make_lz4_framed(const Configuration& c);
std::unique_ptr<BytesCodec> make_zstd(const Configuration& c);
std::unique_ptr<BytesCodec> make_blosc(const Configuration& c);
std::unique_ptr<BytesCodec> make_crc32c_codec(const Configuration& c);
std::unique_ptr<BytesCodec> make_checksum32(const std::string& name, const Configuration& c);
std::unique_ptr<BytesCodec> make_as_type(const std::string& name, const Configuration& c);
std::unique_ptr<BytesCodec> make_packbits(const Configuration& c);
std::unique_ptr<BytesCodec> make_lzma(const Configuration& c);
std::unique_ptr<BytesCodec> make_zfpy(const Configuration& c);
std::unique_ptr<ArrayCodec> make_shuffle(const Configuration& c);
std::unique_ptr<BytesCodec> make_shuffle_bytes(const Configuration& c);
std::unique_ptr<BytesCodec> make_delta(const Configuration& c);
std::unique_ptr<BytesCodec> make_fixed_scale_offset(const Configuration& c);
std::unique_ptr<BytesCodec> make_snappy(const Configuration& c);
std::unique_ptr<BytesCodec> make_xz(const Configuration& c);
std::unique_ptr<ArrayCodec> make_bitshuffle(const Configuration& c);
std::unique_ptr<ArrayCodec> make_byteorder(const Configuration& c);
std::unique_ptr<ArrayCodec> make_transpose(const Configuration& c);

}  // namespace dudley::codec
