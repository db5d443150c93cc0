// Memory for large arrays. A fresh buffer costs one page fault per page touched; with 4 KiB
// pages that is 262,144 faults per GiB, and reading a file into such a buffer runs at a
// tenth of the speed of the copy itself. Large buffers are therefore mapped 2 MiB-aligned
// and offered to the kernel for transparent huge pages (MADV_HUGEPAGE, as numpy does), so a
// read touches each page once and faults 512 times less often.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace dudley {

/// The machine's physical memory in bytes (what a reader or writer holding a whole array at
/// once can never exceed); UINT64_MAX where the system does not say.
uint64_t physical_memory();

/// Buffers of at least this many bytes get huge-page backed memory; smaller ones come from
/// the C heap (where the page-fault cost is noise and the heap reuses memory).
inline constexpr uint64_t kBigMemoryThreshold = uint64_t{4} << 20;

/// `bytes` of zeroed memory (at least one byte), owned by the returned pointer. Large
/// sizes come from an anonymous mapping (zeroed by the kernel as pages are first touched,
/// so zeroing costs nothing up front) aligned to 2 MiB and advised for huge pages where the
/// kernel offers them; small ones from calloc. Throws Error(kLimit) when the memory cannot
/// be had.
std::shared_ptr<void> allocate_zeroed(uint64_t bytes);

/// Tables of at least this many bytes (TableAllocator) get huge-page backed memory.
inline constexpr uint64_t kTableHugePagesFrom = uint64_t{1} << 20;

/// Memory for TableAllocator: `bytes` from operator new when small; otherwise a 2 MiB-aligned
/// anonymous mapping advised for huge pages. Throws std::bad_alloc as operator new does.
void* allocate_table(uint64_t bytes);
/// Gives back what allocate_table(bytes) returned (the same `bytes`).
void free_table(void* p, uint64_t bytes) noexcept;
/// Bytes of table mappings alive now (small tables come from operator new and are not in
/// it): for memory accounting that counts the heap.
uint64_t mapped_table_bytes();
/// The most mapped_table_bytes() has been since the last reset; `reset` restarts it from now.
uint64_t mapped_table_peak(bool reset = false);

/// An allocator for large tables filled right after they are allocated (a parser's tables,
/// reserved from the text's size). A fresh process pays a page fault per 4 KiB it touches,
/// which for a 100,000-line layout costs more than parsing it; tables of a MiB and more
/// are therefore huge-page backed, one fault per 2 MiB.
template <typename T>
struct TableAllocator {
  using value_type = T;
  TableAllocator() = default;
  template <typename U>
  TableAllocator(const TableAllocator<U>& /*other*/) noexcept {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(allocate_table(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { free_table(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const TableAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

/// Maps in the pages of [p, p + bytes) that are not yet there, writable, without changing
/// any byte (MADV_POPULATE_WRITE). The kernel zeroes each fresh page as it maps it, which on
/// a single core is a large part of decoding into a new buffer; done by a second core ahead
/// of the decoder, the decoder finds its pages ready. Safe while another thread writes the
/// range. Returns false where the kernel cannot (before Linux 5.14): nothing is done.
bool populate_pages(void* p, uint64_t bytes);

}  // namespace dudley
