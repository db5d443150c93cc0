// numcodecs' 32-bit checksum codecs, as zarr-python 3 names them in Zarr v3 metadata
// (numcodecs.crc32, numcodecs.adler32, numcodecs.crc32c, numcodecs.fletcher32,
// numcodecs.jenkins_lookup3) and zarr-python 2 as v2 filters or compressors: the data with its
// checksum as 4 little-endian bytes before it ("location": "start", CRC-32's and Adler-32's
// default) or after it (CRC-32C's, Fletcher-32's and lookup3's). A mismatch is refused.
#include <algorithm>
#include <cstring>

#include "dudley/codec/checksum.hpp"
#include "settings.hpp"

namespace dudley::codec {
namespace {

enum class Algorithm { kCrc32, kAdler32, kCrc32c, kFletcher32, kLookup3 };

// HDF5's Fletcher-32 (H5_checksum_fletcher32), which numcodecs copies: big-endian 16-bit
// words summed in runs of 360 (the longest run whose sums cannot overflow 32 bits), an odd
// last byte as the high half of a word.
uint32_t fletcher32_of(ByteView data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t words = data.size() / 2;
  uint32_t sum1 = 0, sum2 = 0;
  while (words > 0) {
    size_t run = std::min<size_t>(words, 360);
    words -= run;
    for (; run > 0; --run, p += 2) {
      sum1 += static_cast<uint32_t>(p[0] << 8 | p[1]);
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (data.size() % 2 != 0) {
    sum1 += static_cast<uint32_t>(p[0]) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return sum2 << 16 | sum1;
}

constexpr uint32_t rotate(uint32_t x, int k) {
  return x << k | x >> (32 - k);
}

// Bob Jenkins' lookup3 hashlittle() as HDF5 has it (H5_checksum_lookup3), which numcodecs'
// JenkinsLookup3 copies: 12-byte blocks read as three little-endian words.
uint32_t lookup3_of(ByteView data, uint32_t initval) {
  const auto* k = reinterpret_cast<const uint8_t*>(data.data());
  size_t length = data.size();
  uint32_t a = 0xdeadbeef + static_cast<uint32_t>(length) + initval;
  uint32_t b = a, c = a;
  auto word = [](const uint8_t* at, size_t n) {
    uint32_t w = 0;
    for (size_t i = 0; i < n; ++i) w += static_cast<uint32_t>(at[i]) << (8 * i);
    return w;
  };
  while (length > 12) {
    a += word(k, 4);
    b += word(k + 4, 4);
    c += word(k + 8, 4);
    a -= c, a ^= rotate(c, 4), c += b;
    b -= a, b ^= rotate(a, 6), a += c;
    c -= b, c ^= rotate(b, 8), b += a;
    a -= c, a ^= rotate(c, 16), c += b;
    b -= a, b ^= rotate(a, 19), a += c;
    c -= b, c ^= rotate(b, 4), b += a;
    length -= 12;
    k += 12;
  }
  if (length == 0) return c;
  a += word(k, std::min<size_t>(length, 4));
  if (length > 4) b += word(k + 4, std::min<size_t>(length - 4, 4));
  if (length > 8) c += word(k + 8, length - 8);
  c ^= b, c -= rotate(b, 14);
  a ^= c, a -= rotate(c, 11);
  b ^= a, b -= rotate(a, 25);
  c ^= b, c -= rotate(b, 16);
  a ^= c, a -= rotate(c, 4);
  b ^= a, b -= rotate(a, 14);
  c ^= b, c -= rotate(b, 24);
  return c;
}

class Checksum32 final : public BytesCodec {
 public:
  Checksum32(std::string name, Algorithm algorithm, bool at_start, uint32_t initval)
      : name_(std::move(name)), algorithm_(algorithm), at_start_(at_start), initval_(initval) {}
  std::string name() const override { return name_; }
  Configuration configuration() const override {
    Configuration c = Configuration::object();
    if (algorithm_ == Algorithm::kLookup3) {
      c["initval"] = initval_;
    } else if (algorithm_ != Algorithm::kFletcher32) {
      c["location"] = at_start_ ? "start" : "end";
    }
    return c;
  }

  void encode_into(ByteView in, Bytes& out) const override {
    out.resize(in.size() + 4);
    const size_t data_at = at_start_ ? 4 : 0;
    if (!in.empty()) std::memcpy(out.data() + data_at, in.data(), in.size());
    const uint32_t sum = checksum(in);
    const size_t sum_at = at_start_ ? 0 : in.size();
    for (int i = 0; i < 4; ++i) out[sum_at + i] = static_cast<std::byte>(sum >> (8 * i));
  }

  std::optional<size_t> decode_to(ByteView in, MutableByteView out) const override {
    if (in.size() < 4) fail(fmt::format("{} bytes cannot hold a 4-byte checksum", in.size()));
    const size_t n = in.size() - 4;
    const ByteView data = in.subspan(at_start_ ? 4 : 0, n);
    const size_t sum_at = at_start_ ? 0 : n;
    uint32_t stored = 0;
    for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(in[sum_at + i]) << (8 * i);
    const uint32_t actual = checksum(data);
    if (stored != actual) {
      fail(fmt::format("checksum mismatch: stored {:08x}, data has {:08x}", stored, actual));
    }
    if (n > out.size()) return std::nullopt;
    if (n > 0) std::memcpy(out.data(), data.data(), n);
    return n;
  }

 private:
  uint32_t checksum(ByteView data) const {
    switch (algorithm_) {
      case Algorithm::kCrc32:
        return crc32(data);
      case Algorithm::kAdler32:
        return adler32(data);
      case Algorithm::kCrc32c:
        return crc32c(data);
      case Algorithm::kFletcher32:
        return fletcher32_of(data);
      case Algorithm::kLookup3:
        return lookup3_of(data, initval_);
    }
    return 0;
  }

  std::string name_;
  Algorithm algorithm_;
  bool at_start_;
  uint32_t initval_;
};

}  // namespace

std::unique_ptr<BytesCodec> make_checksum32(const std::string& name, const Configuration& c) {
  if (name == "numcodecs.fletcher32") {
    only_settings(name, c, {});
    return std::make_unique<Checksum32>(name, Algorithm::kFletcher32, false, 0);
  }
  if (name == "numcodecs.jenkins_lookup3") {
    only_settings(name, c, {"initval", "prefix"});
    // numcodecs hashes a prefix before the data; zarr-python cannot write one (bytes are not
    // JSON), so only its absence is read.
    if (c.is_object() && c.contains("prefix") && !c["prefix"].is_null()) {
      throw Error(ErrorCategory::kUsage, fmt::format("{}: a prefix ({}) is not read by this build",
                                                     name, c["prefix"].dump()));
    }
    const auto initval = static_cast<uint32_t>(int_setting(name, c, "initval", 0, 0, 0xffffffff));
    return std::make_unique<Checksum32>(name, Algorithm::kLookup3, false, initval);
  }
  const Algorithm algorithm = name == "numcodecs.crc32"     ? Algorithm::kCrc32
                              : name == "numcodecs.adler32" ? Algorithm::kAdler32
                                                            : Algorithm::kCrc32c;
  only_settings(name, c, {"location"});
  const std::string fallback = algorithm == Algorithm::kCrc32c ? "end" : "start";
  const std::string location = string_setting(name, c, "location", fallback);
  if (location != "start" && location != "end") {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: location must be 'start' or 'end', not '{}'", name, location));
  }
  return std::make_unique<Checksum32>(name, algorithm, location == "start", 0);
}

}  // namespace dudley::codec
