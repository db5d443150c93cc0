#include "dudley/io/prefetched_source.hpp"

#include <cstring>

namespace dudley::io {

void PrefetchedSource::add(uint64_t offset, std::vector<unsigned char> bytes) {
  if (!bytes.empty()) ranges_.push_back({offset, std::move(bytes)});
}

const PrefetchedSource::Range* PrefetchedSource::holding(uint64_t offset, uint64_t length) const {
  for (const Range& r : ranges_) {
    if (offset >= r.offset && offset - r.offset <= r.bytes.size() &&
        length <= r.bytes.size() - (offset - r.offset)) {
      return &r;
    }
  }
  return nullptr;
}

uint64_t PrefetchedSource::read_some(uint64_t offset, uint64_t length, void* out) const {
  if (const Range* r = holding(offset, length)) {
    if (length > 0) std::memcpy(out, r->bytes.data() + (offset - r->offset), length);
    return length;
  }
  return parent_->read_some(offset, length, out);
}

void PrefetchedSource::read_checked(uint64_t offset, uint64_t length, void* out,
                                    const std::string& what) const {
  // Bytes held were read from the file, so they are inside it: no length lookup for them.
  if (const Range* r = holding(offset, length)) {
    if (length > 0) std::memcpy(out, r->bytes.data() + (offset - r->offset), length);
    return;
  }
  parent_->read(offset, length, out, what);
}

void PrefetchedSource::read_unchecked(uint64_t offset, uint64_t length, void* out) const {
  read_checked(offset, length, out, {});
}

const unsigned char* PrefetchedSource::data() const {
  const uint64_t n = parent_->size();
  return n == 0 ? nullptr : parent_->view(0, n);
}

}  // namespace dudley::io
