#include "dudley/io/selection_read.hpp"

#include <algorithm>
#include <cstring>

#include "dudley/core/byte_swap.hpp"

namespace dudley::io {
namespace {

// Reads `bytes` at `address` into `out` and brings them to native order. Swaps each chunk
// right after reading it, while it is still in cache: one pass over memory instead of two.
void read_run(const ByteSource& source, uint64_t address, uint64_t bytes, const DType& stored,
              unsigned char* out) {
  if (bytes == 0) return;
  if (!stored.needs_swap()) {
    source.read(address, bytes, out);
    return;
  }
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  const uint64_t element = stored.size();
  const uint64_t per_chunk = std::max<uint64_t>(1, kChunk / element) * element;
  source.check_range(address, bytes, "data item");
  for (uint64_t done = 0; done < bytes; done += per_chunk) {
    const uint64_t n = std::min(per_chunk, bytes - done);
    source.read(address + done, n, out + done);
    swap_elements(out + done, n / element, stored);
  }
}

// Reads `count` elements of `element` bytes, the row's elements first, first + step, ...
// (step may be negative), from the row starting at `row`, into dst in that order. Close
// elements are read as one span and picked from it, so a strided selection costs a few
// large reads rather than one call per element; far apart ones are read one by one.
void read_row(const ByteSource& source, uint64_t row, int64_t first, int64_t step, int64_t count,
              uint64_t element, unsigned char* dst, std::vector<unsigned char>& scratch) {
  if (step == 1) {
    source.read(row + static_cast<uint64_t>(first) * element,
                static_cast<uint64_t>(count) * element, dst);
    return;
  }
  constexpr uint64_t kSpan = uint64_t{1} << 20;  // bytes read at once
  const uint64_t gap =
      (step > 0 ? static_cast<uint64_t>(step) : static_cast<uint64_t>(-(step + 1)) + 1);
  if (gap > kSpan / element / 4) {  // sparse: a span would be mostly skipped bytes
    for (int64_t i = 0; i < count; ++i) {
      source.read(row + static_cast<uint64_t>(first + i * step) * element, element, dst);
      dst += element;
    }
    return;
  }
  // Elements per span: the span covers (per - 1) * gap + 1 elements.
  const auto per = static_cast<int64_t>((kSpan / element - 1) / gap + 1);
  for (int64_t done = 0; done < count; done += per) {
    const int64_t n = std::min(per, count - done);
    const int64_t a = first + done * step, b = first + (done + n - 1) * step;
    const int64_t low = std::min(a, b);
    const uint64_t span = (static_cast<uint64_t>(n - 1) * gap + 1) * element;
    scratch.resize(span);
    source.read(row + static_cast<uint64_t>(low) * element, span, scratch.data());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst, scratch.data() + static_cast<uint64_t>(a + i * step - low) * element,
                  element);
      dst += element;
    }
  }
}

}  // namespace

void read_selection(const ByteSource& source, uint64_t address, const DType& stored,
                    const std::vector<int64_t>& shape, const Hyperslab& slab, void* out) {
  const uint64_t element = stored.size();
  auto* dst = static_cast<unsigned char*>(out);
  if (element == 0) return;
  if (auto run = contiguous_run(shape, element, slab)) {
    read_run(source, address + run->offset, run->bytes, stored, dst);
    return;
  }
  // Trailing dimensions selected whole fold into the one before them when it is walked
  // with unit steps: each row read is then as long as the selection allows.
  std::vector<int64_t> dims = shape, start = slab.start, count = slab.count;
  std::vector<int64_t> step(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) step[d] = slab.step(d);
  while (dims.size() >= 2) {
    const size_t last = dims.size() - 1;
    const bool whole = start[last] == 0 && count[last] == dims[last] && step[last] == 1;
    if (!whole || step[last - 1] != 1) break;
    start[last - 1] *= dims[last];
    count[last - 1] *= dims[last];
    dims[last - 1] *= dims[last];
    for (auto* v : {&dims, &start, &count, &step}) v->pop_back();
  }
  const size_t rank = dims.size();
  for (int64_t c : count) {
    if (c == 0) return;
  }
  std::vector<uint64_t> pitch(rank);
  pitch[rank - 1] = element;
  for (size_t d = rank - 1; d-- > 0;) pitch[d] = pitch[d + 1] * static_cast<uint64_t>(dims[d + 1]);
  std::vector<unsigned char> scratch;
  const uint64_t row_bytes = static_cast<uint64_t>(count[rank - 1]) * element;
  unsigned char* const first = dst;
  // Every index of the leading dimensions (an odometer, fastest last); each one is a row of
  // the last dimension, read by read_row.
  std::vector<int64_t> index(rank - 1, 0);
  for (;;) {
    uint64_t row = address;
    for (size_t d = 0; d + 1 < rank; ++d) {
      // Inside the array (the caller checked the slab), so the index is in [0, dims[d]).
      row += static_cast<uint64_t>(start[d] + index[d] * step[d]) * pitch[d];
    }
    read_row(source, row, start[rank - 1], step[rank - 1], count[rank - 1], element, dst, scratch);
    dst += row_bytes;
    bool wrapped = true;
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < count[d]) {
        wrapped = false;
        break;
      }
      index[d] = 0;
    }
    if (wrapped) break;
  }
  swap_elements(first, static_cast<uint64_t>(dst - first) / element, stored);
}

}  // namespace dudley::io
