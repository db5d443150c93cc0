#include "dudley/core/error.hpp"

#include <fmt/format.h>

namespace dudley {

const char* to_string(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::kSyntax:
      return "syntax";
    case ErrorCategory::kSemantic:
      return "semantic";
    case ErrorCategory::kType:
      return "type";
    case ErrorCategory::kData:
      return "data";
    case ErrorCategory::kIo:
      return "io";
    case ErrorCategory::kUsage:
      return "usage";
    case ErrorCategory::kLimit:
      return "limit";
    case ErrorCategory::kLoss:
      return "loss";
  }
  return "unknown";
}

std::string Location::to_string() const {
  std::string where = path.empty() ? std::string("<input>") : path;
  if (line > 0) return fmt::format("{}:{}:{}", where, line, column);
  if (byte_offset) return fmt::format("{}:@{}", where, *byte_offset);
  return where;
}

namespace {
std::string compose(const std::string& message, const Location& location) {
  if (location.path.empty() && location.line == 0 && !location.byte_offset) {
    return "error: " + message;
  }
  return location.to_string() + ": error: " + message;
}
}  // namespace

Error::Error(ErrorCategory category, std::string message, Location location)
    : std::runtime_error(compose(message, location)),
      category_(category),
      message_(std::move(message)),
      location_(std::move(location)) {}

namespace {
// A decimal number filling `text`, or nullopt.
std::optional<uint64_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}
}  // namespace

Error error_from_text(ErrorCategory category, const std::string& what) {
  static constexpr std::string_view kMark = "error: ";
  if (what.rfind(kMark, 0) == 0) return Error(category, what.substr(kMark.size()));
  const size_t mark = what.find(": error: ");
  if (mark == std::string::npos) return Error(category, what);
  const std::string where = what.substr(0, mark);
  std::string message = what.substr(mark + 2 + kMark.size());
  Location at;
  at.path = where;
  if (const size_t amp = where.rfind(":@"); amp != std::string::npos) {
    if (auto offset = whole_number(std::string_view(where).substr(amp + 2))) {
      at.path = where.substr(0, amp);
      at.byte_offset = offset;
    }
  } else if (const size_t c2 = where.rfind(':'); c2 != std::string::npos && c2 > 0) {
    const size_t c1 = where.rfind(':', c2 - 1);
    auto line = c1 == std::string::npos
                    ? std::nullopt
                    : whole_number(std::string_view(where).substr(c1 + 1, c2 - c1 - 1));
    auto column = whole_number(std::string_view(where).substr(c2 + 1));
    if (line && column && *line > 0 && *line <= UINT32_MAX && *column <= UINT32_MAX) {
      at.path = where.substr(0, c1);
      at.line = static_cast<uint32_t>(*line);
      at.column = static_cast<uint32_t>(*column);
    }
  }
  if (at.path == "<input>") at.path.clear();
  return Error(category, std::move(message), std::move(at));
}

}  // namespace dudley
