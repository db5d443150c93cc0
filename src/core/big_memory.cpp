#include "dudley/core/big_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "dudley/core/error.hpp"

namespace dudley {

uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

namespace {

constexpr uint64_t kHugePage = uint64_t{2} << 20;

[[noreturn]] void out_of_memory(uint64_t bytes) {
  throw Error(ErrorCategory::kLimit, fmt::format("cannot allocate {} bytes for an array", bytes));
}

// A mapping of `length` bytes (a multiple of 4 KiB) starting on a 2 MiB boundary: map one
// huge page more than needed and give back the ends.
void* map_aligned(uint64_t length) {
  const uint64_t padded = length + kHugePage;
  void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  // Pointer arithmetic on the mapping itself (not integers cast back to pointers).
  char* const base = static_cast<char*>(raw);
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uint64_t lead = ((start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1)) - start;
  if (lead > 0) ::munmap(base, lead);
  const uint64_t trail = padded - lead - length;
  if (trail > 0) ::munmap(base + lead + length, trail);
  return base + lead;
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

namespace {
// What allocate_table has mapped: tables live outside the heap, so a memory count that
// watches the heap (the parse benchmark's) adds these.
std::atomic<uint64_t> g_table_bytes{0};
std::atomic<uint64_t> g_table_peak{0};
}  // namespace

uint64_t mapped_table_bytes() {
  return g_table_bytes.load();
}

uint64_t mapped_table_peak(bool reset) {
  return reset ? g_table_peak.exchange(g_table_bytes.load()) : g_table_peak.load();
}

// A table's mapping ends at the page after its last byte, not at a huge page: its whole
// 2 MiB pages are huge, the tail keeps 4 KiB pages, so memory follows the bytes used.
uint64_t table_length(uint64_t bytes) {
  constexpr uint64_t kPage = 4096;
  return (bytes + kPage - 1) & ~(kPage - 1);
}

void* allocate_table(uint64_t bytes) {
  if (bytes < kTableHugePagesFrom) return ::operator new(bytes);
  if (bytes > UINT64_MAX - 2 * kHugePage) throw std::bad_alloc();
  const uint64_t length = table_length(bytes);
  void* p = map_aligned(length);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  (void)::madvise(p, length, MADV_HUGEPAGE);
#endif
  const uint64_t now = g_table_bytes += length;
  uint64_t peak = g_table_peak.load();
  while (now > peak && !g_table_peak.compare_exchange_weak(peak, now)) {
  }
  return p;
}

void free_table(void* p, uint64_t bytes) noexcept {
  if (bytes < kTableHugePagesFrom) {
    ::operator delete(p);
    return;
  }
  const uint64_t length = table_length(bytes);
  g_table_bytes -= length;
  ::munmap(p, length);
}

// Arrays this small share one allocation with their owner's count.
constexpr uint64_t kSmallArrayBytes = 1024;

std::shared_ptr<void> allocate_zeroed(uint64_t bytes) {
  if (bytes <= kSmallArrayBytes) {
    // The bytes and their owner's count in one allocation (calloc and a control block are
    // two): 100,000 small arrays read from records each pay one malloc, not two.
    // Zeroed here: max_align_t's value-initialization leaves its padding bytes (those of a
    // long double) as they were, and callers count on every byte being 0.
    const size_t units =
        static_cast<size_t>((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
    auto block = std::make_shared_for_overwrite<std::max_align_t[]>(units == 0 ? 1 : units);
    std::memset(block.get(), 0, (units == 0 ? 1 : units) * sizeof(std::max_align_t));
    return std::shared_ptr<void>(block, block.get());
  }
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
