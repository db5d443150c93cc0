// Memory for large arrays. A fresh buffer costs one page fault per page touched; with 4 KiB
// pages that is 262,144 faults per GiB, and reading a file into such a buffer runs at a
// tenth of the speed of the copy itself. Large buffers are therefore mapped 2 MiB-aligned
// and offered to the kernel for transparent huge pages (MADV_HUGEPAGE, as numpy does), so a
// read touches each page once and faults 512 times less often.
#pragma once

#include <cstdint>
#include <memory>

namespace dudley {

/// Buffers of at least this many bytes get huge-page backed memory; smaller ones come from
/// the C heap (where the page-fault cost is noise and the heap reuses memory).
inline constexpr uint64_t kBigMemoryThreshold = uint64_t{4} << 20;

/// `bytes` of zeroed memory (at least one byte), owned by the returned pointer. Large
/// sizes come from an anonymous mapping (zeroed by the kernel as pages are first touched,
/// so zeroing costs nothing up front) aligned to 2 MiB and advised for huge pages where the
/// kernel offers them; small ones from calloc. Throws Error(kLimit) when the memory cannot
/// be had.
std::shared_ptr<void> allocate_zeroed(uint64_t bytes);

/// Maps in the pages of [p, p + bytes) that are not yet there, writable, without changing
/// any byte (MADV_POPULATE_WRITE). The kernel zeroes each fresh page as it maps it, which on
/// a single core is a large part of decoding into a new buffer; done by a second core ahead
/// of the decoder, the decoder finds its pages ready. Safe while another thread writes the
/// range. Returns false where the kernel cannot (before Linux 5.14): nothing is done.
bool populate_pages(void* p, uint64_t bytes);

}  // namespace dudley
