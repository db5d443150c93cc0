#include "dudley/core/hyperslab.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley {

namespace {

[[noreturn]] void bad_slab(std::string_view text, const std::string& why) {
  throw Error(ErrorCategory::kUsage, fmt::format("bad selection '{}': {}", text, why));
}

std::optional<int64_t> parse_int(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Hyperslab Hyperslab::parse(std::string_view text, const std::vector<int64_t>& shape) {
  std::string_view body = text;
  if (body.size() < 2 || body.front() != '[' || body.back() != ']')
    bad_slab(text, "use [a:b, ...]");
  body = body.substr(1, body.size() - 2);
  std::vector<std::string_view> parts;
  for (size_t i = 0;;) {
    size_t comma = body.find(',', i);
    parts.push_back(body.substr(i, comma == std::string_view::npos ? comma : comma - i));
    if (comma == std::string_view::npos) break;
    i = comma + 1;
  }
  if (parts.size() != shape.size()) {
    bad_slab(text,
             fmt::format("{} dimensions given, the array has {}", parts.size(), shape.size()));
  }
  Hyperslab slab;
  for (size_t d = 0; d < parts.size(); ++d) {
    const int64_t n = shape[d];
    std::vector<std::string_view> fields;
    for (size_t i = 0;;) {
      size_t colon = parts[d].find(':', i);
      fields.push_back(parts[d].substr(i, colon == std::string_view::npos ? colon : colon - i));
      if (colon == std::string_view::npos) break;
      i = colon + 1;
    }
    auto value_or = [&](std::string_view s, int64_t fallback) {
      bool blank = s.find_first_not_of(' ') == std::string_view::npos;
      if (blank) return fallback;
      auto v = parse_int(s);
      if (!v) bad_slab(text, fmt::format("'{}' is not an integer", s));
      return *v < 0 ? *v + n : *v;  // negative counts from the end, as in numpy
    };
    if (fields.size() == 1) {
      int64_t i = value_or(fields[0], -1);
      if (i < 0 || i >= n)
        bad_slab(text, fmt::format("index out of range for dimension {} of size {}", d, n));
      slab.start.push_back(i);
      slab.count.push_back(1);
      slab.stride.push_back(1);
      continue;
    }
    if (fields.size() > 3) bad_slab(text, "at most start:stop:step per dimension");
    int64_t step = fields.size() == 3 ? value_or(fields[2], 1) : 1;
    if (fields.size() == 3 && step <= 0) bad_slab(text, "the step must be positive");
    int64_t begin = std::clamp<int64_t>(value_or(fields[0], 0), 0, n);
    int64_t stop = std::clamp<int64_t>(value_or(fields[1], n), 0, n);
    slab.start.push_back(begin);
    slab.count.push_back(stop > begin ? (stop - begin + step - 1) / step : 0);
    slab.stride.push_back(step);
  }
  return slab;
}

}  // namespace dudley
