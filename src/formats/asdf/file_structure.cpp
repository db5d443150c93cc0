#include "file_structure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "blocks.hpp"
#include "dudley/core/error.hpp"

namespace dudley::asdf {
namespace {

// Reads lines one after another through a buffer of 64 KiB pieces: a header followed by two
// million comment lines is read once, not 4 KiB per line.
class LineReader {
 public:
  explicit LineReader(const io::ByteSource& source) : source_(source) {}

  /// The line at `at` without its "\n" or "\r\n", and where the next one starts (nullopt
  /// when no newline follows within `limit` bytes).
  struct Line {
    std::string_view text;
    uint64_t next;
  };
  std::optional<Line> at(uint64_t at, uint64_t limit = 4096) {
    if (at < buf_at_ || at + limit + 1 > buf_at_ + buf_.size()) {
      if (!eof_ || at < buf_at_) fill(at, limit + 1);
    }
    if (at < buf_at_ || at > buf_at_ + buf_.size()) return std::nullopt;
    const std::string_view rest =
        std::string_view(buf_).substr(at - buf_at_, limit + 1);  // a newline may end it
    const size_t nl = rest.find('\n');
    if (nl == std::string_view::npos || nl > limit) return std::nullopt;
    std::string_view text = rest.substr(0, nl);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    return Line{text, at + nl + 1};
  }

 private:
  void fill(uint64_t at, uint64_t at_least) {
    constexpr uint64_t kPiece = uint64_t{64} << 10;
    const uint64_t want = std::max(kPiece, at_least);
    buf_.resize(want);
    buf_.resize(source_.read_some(at, want, buf_.data()));
    buf_at_ = at;
    eof_ = buf_.size() < want;
  }

  const io::ByteSource& source_;
  std::string buf_;
  uint64_t buf_at_ = 0;
  bool eof_ = false;
};

}  // namespace

FileStructure read_structure(const io::ByteSource& source) {
  FileStructure out;
  LineReader lines(source);
  auto header = lines.at(0, 256);
  if (!header || !header->text.starts_with("#ASDF ")) {
    throw Error(ErrorCategory::kData, "not an ASDF file: it does not start with '#ASDF '",
                Location::binary(source.name(), 0));
  }
  out.file_version = header->text.substr(6);
  uint64_t at = header->next;
  for (;;) {
    auto line = lines.at(at);
    if (!line || line->text.empty() || line->text[0] != '#') break;
    if (line->text.starts_with("#ASDF_STANDARD "))
      out.standard_version = std::string(line->text.substr(15));
    at = line->next;
  }
  out.tree_end = at;
  char lead[5] = {};
  const uint64_t got = source.read_some(at, 5, lead);
  const std::string_view start(lead, got);
  if (!(start.starts_with("%") || start.starts_with("---"))) {
    // No tree: the file ends, or its blocks follow. Anything else is neither (python asdf:
    // "Invalid content between header and tree"), not an empty tree.
    const bool blocks = start.size() >= 4 && static_cast<uint8_t>(start[0]) == kBlockMagic[0] &&
                        start.substr(1, 3) == "BLK";
    if (got == 0 || blocks) return out;
    throw Error(ErrorCategory::kData,
                "invalid content between the header and the tree: expected the YAML tree "
                "('%YAML 1.1' or '---'), a block or the end of the file",
                Location::binary(source.name(), at));
  }

  // The tree ends at the first line that is "..." (the document end marker).
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  std::string text;
  text.resize(at);
  source.read(0, at, text.data());
  size_t search_from = at > 0 ? at - 1 : 0;  // the newline before the first tree line
  for (uint64_t pos = at;; pos += kChunk) {
    const size_t old = text.size();
    text.resize(old + kChunk);
    const uint64_t n = source.read_some(pos, kChunk, text.data() + old);
    text.resize(old + n);
    for (size_t found = text.find("\n...", search_from); found != std::string::npos;
         found = text.find("\n...", found + 1)) {
      const size_t after = found + 4;
      size_t end = std::string::npos;
      if (after < text.size() && text[after] == '\n') end = after + 1;
      if (after + 1 < text.size() && text[after] == '\r' && text[after + 1] == '\n')
        end = after + 2;
      if (after == text.size() && n < kChunk) end = after;  // "..." ends the file
      if (end == std::string::npos) {
        if (after + 2 > text.size() && n == kChunk) break;  // may continue in the next chunk
        continue;
      }
      text.resize(end);
      out.tree_end = end;
      out.tree_text = std::move(text);
      return out;
    }
    search_from = text.size() >= 6 ? text.size() - 6 : 0;
    if (n < kChunk) break;
  }
  throw Error(ErrorCategory::kData, "the YAML tree has no end marker ('...' on a line of its own)",
              Location::binary(source.name(), at));
}

}  // namespace dudley::asdf
