#include "dudley/core/big_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley {

namespace {

constexpr uint64_t kHugePage = uint64_t{2} << 20;

[[noreturn]] void out_of_memory(uint64_t bytes) {
  throw Error(ErrorCategory::kLimit, fmt::format("cannot allocate {} bytes for an array", bytes));
}

// A mapping of `length` bytes (a multiple of 2 MiB) starting on a 2 MiB boundary: map one
// huge page more than needed and give back the ends.
void* map_aligned(uint64_t length) {
  const uint64_t padded = length + kHugePage;
  void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t tail = aligned + length;
  const uintptr_t end = start + padded;
  if (end > tail) ::munmap(reinterpret_cast<void*>(tail), end - tail);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

bool populate_pages(void* p, uint64_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const uint64_t page = 4096;
  const auto start = reinterpret_cast<uintptr_t>(p);
  const uint64_t skip = (page - start % page) % page;  // whole pages only
  if (bytes < skip + page) return true;
  char* first = static_cast<char*>(p) + skip;
  const uint64_t length = (bytes - skip) & ~(page - 1);
  // In huge-page steps, so the decoder behind it meets ready pages from the start.
  for (uint64_t at = 0; at < length; at += kHugePage) {
    const uint64_t n = std::min(kHugePage, length - at);
    if (::madvise(first + at, n, MADV_POPULATE_WRITE) != 0) return false;
  }
  return true;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

std::shared_ptr<void> allocate_zeroed(uint64_t bytes) {
  if (bytes < kBigMemoryThreshold) {
    void* p = std::calloc(bytes ? bytes : 1, 1);
    if (!p) out_of_memory(bytes);
    return std::shared_ptr<void>(p, std::free);
  }
  if (bytes > UINT64_MAX - 2 * kHugePage) out_of_memory(bytes);
  const uint64_t length = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  void* p = map_aligned(length);
  if (!p) out_of_memory(bytes);
#ifdef MADV_HUGEPAGE
  // Advice only: a kernel without transparent huge pages keeps 4 KiB pages.
  (void)::madvise(p, length, MADV_HUGEPAGE);
#endif
  return std::shared_ptr<void>(p, [length](void* q) { ::munmap(q, length); });
}

}  // namespace dudley
