#include "dudley/layout/syntax/doc_lines.hpp"

#include "dudley/core/text.hpp"

namespace dudley::layout {

std::vector<std::string> doc_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find_first_of("\r\n", start);
    std::string_view part = text.substr(start, end == std::string_view::npos ? end : end - start);
    std::string line;
    for (size_t at = 0; at <= part.size();) {
      const size_t nul = std::min(part.find('\0', at), part.size());
      line += decode_utf8(part.substr(at, nul - at));
      if (nul < part.size()) line += "\\0";
      at = nul + 1;
    }
    lines.push_back(std::move(line));
    if (end == std::string_view::npos) break;
    start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  return lines;
}

}  // namespace dudley::layout
