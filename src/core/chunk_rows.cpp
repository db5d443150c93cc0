// Reading a chunk's selected rows straight from its stored bytes (see chunk_rows.hpp).
#include "dudley/core/chunk_rows.hpp"

#include <algorithm>
#include <cstring>

#include "dudley/core/byte_swap.hpp"

namespace dudley {

namespace {

// Rows this near are read as one: a gap costs less to read than another request.
constexpr uint64_t kJoinGap = uint64_t{16} << 10;
// What one joined read holds at most.
constexpr uint64_t kMostJoined = uint64_t{4} << 20;

// Where one row's elements lie in the chunk, in bytes: [low, high), and its first element.
struct RowSpan {
  uint64_t low = 0, high = 0, first = 0, to = 0;
};

RowSpan span_of(const ChunkRows& rows, uint64_t from, uint64_t to, uint64_t element) {
  const int64_t reach = (rows.length() - 1) * rows.step();  // from the first element to the last
  const uint64_t last = static_cast<uint64_t>(static_cast<int64_t>(from) + reach);
  RowSpan s;
  s.low = std::min(from, last) * element;
  s.high = (std::max(from, last) + 1) * element;
  s.first = from * element;
  s.to = to * element;
  return s;
}

}  // namespace

uint64_t ChunkRows::spanned_bytes(uint64_t element) const {
  uint64_t total = 0;
  each([&](uint64_t from, uint64_t to) {
    const RowSpan s = span_of(*this, from, to, element);
    total += s.high - s.low;
  });
  return total;
}

void ChunkRows::place(const std::byte* chunk, const std::byte* fill, uint64_t element,
                      std::byte* out) const {
  if (element == 0) return;  // elements of no bytes (zero-length strings): nothing to place
  const auto n = static_cast<uint64_t>(length());
  each([&](uint64_t from, uint64_t to) {
    std::byte* target = out + to * element;
    if (chunk) {
      copy_row(target, chunk + from * element, element);
      return;
    }
    for (uint64_t i = 0; i < n; ++i) std::memcpy(target + i * element, fill, element);
  });
}

void read_chunk_rows(const ChunkRows& rows, const DType& stored, uint64_t base, std::byte* out,
                     const std::function<void(uint64_t, uint64_t, std::byte*)>& read) {
  const uint64_t element = stored.size();
  std::vector<RowSpan> group;
  std::vector<std::byte> buffer;
  auto flush = [&] {
    if (group.empty()) return;
    uint64_t low = group.front().low, high = group.front().high;
    for (const RowSpan& s : group) {
      low = std::min(low, s.low);
      high = std::max(high, s.high);
    }
    buffer.resize(high - low);
    read(base + low, high - low, buffer.data());
    for (const RowSpan& s : group) {
      std::byte* to = out + s.to;
      rows.copy_row(to, buffer.data() + (s.first - low), element);
      if (stored.needs_swap()) swap_elements(to, static_cast<uint64_t>(rows.length()), stored);
    }
    group.clear();
  };
  rows.each([&](uint64_t from, uint64_t to) {
    const RowSpan s = span_of(rows, from, to, element);
    if (!group.empty()) {
      const RowSpan& last = group.back();
      const bool near = s.low >= last.high && s.low - last.high <= kJoinGap &&
                        s.high - group.front().low <= kMostJoined;
      if (!near) flush();
    }
    group.push_back(s);
  });
  flush();
}

}  // namespace dudley
