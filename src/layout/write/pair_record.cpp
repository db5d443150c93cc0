#include "dudley/layout/write/pair_record.hpp"

#include <cstring>

#include <sys/random.h>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley::layout {

namespace {

constexpr unsigned char kMagic[8] = {0x89, 'D', 'P', 'A', 'I', 'R', 0x0d, 0x0a};
constexpr std::string_view kPrefix = "# dudley-pair: ";

std::string hex(const std::array<unsigned char, 16>& id) {
  std::string out;
  for (unsigned char b : id) out += fmt::format("{:02x}", b);
  return out;
}

}  // namespace

PairRecord new_pair_record(uint64_t data_length) {
  PairRecord r;
  r.data_length = data_length;
  size_t got = 0;
  while (got < r.id.size()) {
    const ssize_t n = ::getrandom(r.id.data() + got, r.id.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCategory::kIo, "no random source for the pair identifier");
    got += static_cast<size_t>(n);
  }
  return r;
}

std::string pair_trailer(const PairRecord& record) {
  std::string out(kPairTrailerBytes, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((record.data_length >> (8 * i)) & 0xff);
  std::memcpy(out.data() + 8, record.id.data(), 16);
  std::memcpy(out.data() + 24, kMagic, 8);
  return out;
}

std::string pair_line(const PairRecord& record) {
  return fmt::format("{}{} {}\n", kPrefix, hex(record.id), record.data_length);
}

std::optional<PairRecord> parse_pair_line(std::string_view text) {
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  text = text.substr(0, text.find('\n'));
  if (text.size() < 34 || text[32] != ' ') return std::nullopt;
  PairRecord r;
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    for (size_t k = 0; k < 2; ++k) {
      const char c = text[2 * i + k];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(d);
    }
    r.id[i] = static_cast<unsigned char>(v);
  }
  uint64_t length = 0;
  for (char c : text.substr(33)) {
    if (c < '0' || c > '9' || length > (UINT64_MAX - 9) / 10) return std::nullopt;
    length = length * 10 + static_cast<uint64_t>(c - '0');
  }
  r.data_length = length;
  return r;
}

void verify_pair(const PairRecord& record, const io::ByteSource& data,
                 const std::string& layout_path) {
  auto mismatch = [&](const std::string& why) {
    throw Error(ErrorCategory::kData,
                fmt::format("this data and {} are not from the same write ({}): a write was "
                            "interrupted between the two files, or two wrote at once; write "
                            "again (a layout meant for other data files must not start with "
                            "'# dudley-pair')",
                            layout_path, why),
                Location::file(data.name()));
  };
  const uint64_t size = data.size();
  if (record.data_length > size || size - record.data_length != kPairTrailerBytes) {
    mismatch(fmt::format("the layout expects {} bytes, the data file has {}",
                         record.data_length + kPairTrailerBytes, size));
  }
  unsigned char trailer[kPairTrailerBytes];
  data.read(record.data_length, kPairTrailerBytes, trailer, "the pair trailer");
  if (std::memcmp(trailer, pair_trailer(record).data(), kPairTrailerBytes) != 0) {
    mismatch("their pair identifiers differ");
  }
}

}  // namespace dudley::layout
