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

}  // namespace dudley
