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

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// An integer as Python writes one ("-3", "+3"); nullopt for anything else.
std::optional<int64_t> parse_int(std::string_view s) {
  s = trimmed(s);
  if (s.size() > 1 && s.front() == '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char at) {
  std::vector<std::string_view> parts;
  for (size_t i = 0;;) {
    const size_t next = s.find(at, i);
    parts.push_back(s.substr(i, next == std::string_view::npos ? next : next - i));
    if (next == std::string_view::npos) return parts;
    i = next + 1;
  }
}

struct Dim {
  int64_t start = 0, count = 0, step = 1;
  bool dropped = false;
};

// Python's slice.indices(n) and len(range(...)): bounds are clamped, never an error.
Dim slice_of(std::string_view text, const std::vector<std::string_view>& fields, int64_t n) {
  auto value = [&](std::string_view s) -> std::optional<int64_t> {
    if (trimmed(s).empty()) return std::nullopt;
    auto v = parse_int(s);
    if (!v) bad_slab(text, fmt::format("'{}' is not an integer", trimmed(s)));
    return v;
  };
  Dim d;
  d.step = fields.size() == 3 ? value(fields[2]).value_or(1) : 1;
  if (d.step == 0) bad_slab(text, "slice step cannot be zero");
  const std::optional<int64_t> first = value(fields[0]), stop_given = value(fields[1]);
  // Negative bounds count from the end (n >= 0, so v + n cannot overflow for v < 0).
  auto from_end = [n](int64_t v) { return v < 0 ? v + n : v; };
  if (d.step > 0) {
    const int64_t begin = first ? std::clamp<int64_t>(from_end(*first), 0, n) : 0;
    const int64_t stop = stop_given ? std::clamp<int64_t>(from_end(*stop_given), 0, n) : n;
    d.start = begin;
    d.count = stop > begin ? (stop - begin - 1) / d.step + 1 : 0;
  } else {
    // Backwards: from `begin` down to just above `stop`; -1 stands for "before the first".
    const int64_t begin = first ? std::clamp<int64_t>(from_end(*first), -1, n - 1) : n - 1;
    const int64_t stop = stop_given ? std::clamp<int64_t>(from_end(*stop_given), -1, n - 1) : -1;
    // -(step + 1) + 1 in unsigned arithmetic: the magnitude even of INT64_MIN.
    const uint64_t magnitude = static_cast<uint64_t>(-(d.step + 1)) + 1;
    d.start = begin;
    d.count = begin > stop
                  ? static_cast<int64_t>(static_cast<uint64_t>(begin - stop - 1) / magnitude) + 1
                  : 0;
  }
  if (d.count == 0) d.start = 0;  // nothing is read; keep the start inside the array
  return d;
}

}  // namespace

Hyperslab Hyperslab::all(const std::vector<int64_t>& shape) {
  Hyperslab slab;
  slab.start.assign(shape.size(), 0);
  slab.count = shape;
  slab.stride.assign(shape.size(), 1);
  slab.dropped.assign(shape.size(), false);
  return slab;
}

Hyperslab Hyperslab::parse(std::string_view text, const std::vector<int64_t>& shape) {
  std::string_view body = trimmed(text);
  if (body.size() < 2 || body.front() != '[' || body.back() != ']') {
    bad_slab(text, "use numpy's form, such as [0:2, ::-1, 5] or [..., 0]");
  }
  body = body.substr(1, body.size() - 2);
  std::vector<std::string_view> parts;
  if (!trimmed(body).empty()) parts = split(body, ',');
  // A trailing comma is allowed, as in Python: x[1,] is x[1].
  if (parts.size() > 1 && trimmed(parts.back()).empty()) parts.pop_back();
  size_t ellipsis = parts.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (trimmed(parts[i]) != "...") continue;
    if (ellipsis != parts.size())
      bad_slab(text, "an index can only have a single ellipsis ('...')");
    ellipsis = i;
  }
  const size_t named = parts.size() - (ellipsis != parts.size() ? 1 : 0);
  if (named > shape.size()) {
    bad_slab(text, fmt::format("too many indices: the array is {}-dimensional, but {} were indexed",
                               shape.size(), named));
  }
  // Dimensions not named are whole: at the ellipsis, or at the end.
  const size_t whole = shape.size() - named;
  Hyperslab slab;
  auto push = [&](const Dim& d) {
    slab.start.push_back(d.start);
    slab.count.push_back(d.count);
    slab.stride.push_back(d.step);
    slab.dropped.push_back(d.dropped);
  };
  auto push_whole = [&](size_t dims) {
    for (size_t i = 0; i < dims; ++i) push({0, shape[slab.start.size()], 1, false});
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == ellipsis) {
      push_whole(whole);
      continue;
    }
    const size_t dim = slab.start.size();
    const int64_t n = shape[dim];
    const std::vector<std::string_view> fields = split(parts[i], ':');
    if (fields.size() > 3) bad_slab(text, "at most start:stop:step per dimension");
    if (fields.size() > 1) {
      push(slice_of(text, fields, n));
      continue;
    }
    const std::optional<int64_t> index = parse_int(fields[0]);
    if (!index) {
      bad_slab(text, trimmed(fields[0]).empty()
                         ? std::string("an empty index (use ':' for a whole dimension)")
                         : fmt::format("'{}' is not an integer", trimmed(fields[0])));
    }
    const int64_t at = *index < 0 ? *index + n : *index;
    if (at < 0 || at >= n) {
      bad_slab(text, fmt::format("index {} is out of bounds for dimension {} with size {}", *index,
                                 dim, n));
    }
    push({at, 1, 1, true});
  }
  if (ellipsis == parts.size()) push_whole(whole);
  return slab;
}

std::vector<int64_t> Hyperslab::result_shape() const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < count.size(); ++d) {
    if (d < dropped.size() && dropped[d]) continue;
    out.push_back(count[d]);
  }
  return out;
}

void Hyperslab::check_fits(const std::vector<int64_t>& shape) const {
  const size_t rank = shape.size();
  if (start.size() != rank || count.size() != rank || (!stride.empty() && stride.size() != rank) ||
      (!dropped.empty() && dropped.size() != rank)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("the selection has rank {}, the array {}", count.size(), rank));
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t s = step(d), n = shape[d], c = count[d], first = start[d];
    if (s == 0 || c < 0) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("selection of dimension {}: step 0 or negative count", d));
    }
    if (c == 0) continue;
    // The last element, first + (c - 1) * s, must be inside; divided, not multiplied, so
    // huge counts and strides cannot overflow.
    const bool fits =
        first >= 0 && first < n &&
        (s > 0 ? c - 1 <= (n - 1 - first) / s
               : static_cast<uint64_t>(c - 1) <=
                     static_cast<uint64_t>(first) / (static_cast<uint64_t>(-(s + 1)) + 1));
    if (!fits) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("the selection leaves dimension {} of size {}", d, n));
    }
  }
}

}  // namespace dudley

namespace dudley {

std::optional<ByteRun> contiguous_run(const std::vector<int64_t>& shape, uint64_t element_size,
                                      const Hyperslab& slab) {
  const size_t rank = shape.size();
  if (rank == 0) return ByteRun{0, element_size};
  for (int64_t c : slab.count) {
    if (c == 0) return ByteRun{0, 0};
  }
  // k: the dimension the run extends along; before it one element each, after it whole.
  size_t k = 0;
  while (k + 1 < rank && slab.count[k] == 1) ++k;
  if (slab.count[k] > 1 && slab.step(k) != 1) return std::nullopt;
  for (size_t d = k + 1; d < rank; ++d) {
    if (slab.start[d] != 0 || slab.count[d] != shape[d] || (shape[d] > 1 && slab.step(d) != 1))
      return std::nullopt;
  }
  // The selection fits an array whose byte size was checked when it was described, so no
  // sum or product below exceeds that size.
  uint64_t pitch = element_size, offset = 0;
  for (size_t d = rank; d-- > k + 1;) pitch *= static_cast<uint64_t>(shape[d]);
  const uint64_t bytes = pitch * static_cast<uint64_t>(slab.count[k]);
  for (size_t d = rank; d-- > 0;) {
    if (d <= k) offset += static_cast<uint64_t>(slab.start[d]) * pitch;
    if (d > 0 && d <= k) pitch *= static_cast<uint64_t>(shape[d]);
  }
  return ByteRun{offset, bytes};
}

}  // namespace dudley
