#include "dudley/core/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace dudley {

size_t edit_distance(std::string_view a, std::string_view b, size_t limit) {
  const size_t far = limit + 1;
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return far;
  // Rows of the dynamic programme (optimal string alignment: an edit is an insertion, a
  // deletion, a substitution or a swap of neighbours, the commonest typos); only cells within
  // `limit` of the diagonal matter.
  std::vector<size_t> before(b.size() + 1, far), row(b.size() + 1), next(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = std::min(j, far);
  for (size_t i = 1; i <= a.size(); ++i) {
    const size_t lo = i > limit ? i - limit : 1;
    const size_t hi = std::min(b.size(), i + limit);
    std::fill(next.begin(), next.end(), far);
    next[0] = std::min(i, far);
    size_t best = next[0];
    for (size_t j = lo; j <= hi; ++j) {
      const size_t substitute = row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      size_t cell = std::min({substitute, row[j] + 1, next[j - 1] + 1, far});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cell = std::min(cell, before[j - 2] + 1);
      }
      next[j] = cell;
      best = std::min(best, cell);
    }
    if (best >= far) return far;
    std::swap(before, row);
    std::swap(row, next);
  }
  return std::min(row[b.size()], far);
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string nearest_name(std::string_view wanted, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(1, wanted.size() / 3);
  const std::string folded = lower(wanted);
  size_t best = std::numeric_limits<size_t>::max();
  std::string found;
  for (const std::string& c : candidates) {
    if (c == wanted) continue;
    const size_t d = lower(c) == folded ? 0 : edit_distance(wanted, c, limit);
    // A one-letter name is never "near" another one-letter name: only case differs then.
    if (d <= limit && d < best && d < wanted.size()) {
      best = d;
      found = c;
    }
  }
  return found;
}

std::string did_you_mean(std::string_view wanted, const std::vector<std::string>& candidates) {
  const std::string near = nearest_name(wanted, candidates);
  return near.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", near);
}

}  // namespace dudley
