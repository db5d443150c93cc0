#include "dudley/layout/syntax/names.hpp"

#include <algorithm>
#include <cstring>

namespace dudley::layout {

namespace {
// Names are short: hash up to 16 bytes with multiplies; longer ones with std::hash. The
// final mixing matters: slots use the low bits, which a bare product takes only from the
// first characters (and "field_12", "field_13" share those).
uint64_t hash_name(std::string_view name) {
  const size_t n = name.size();
  if (n > 16) return std::hash<std::string_view>{}(name);
  // Fixed-size loads only (overlapping for odd lengths; the length is mixed in): a memcpy
  // of a variable size goes through memory and stalls the load of the word it fills.
  const char* p = name.data();
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    if (n > 8) std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    a = (uint64_t{hi} << 32) | lo;
  } else if (n > 0) {
    a = static_cast<unsigned char>(p[0]) | (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
        (uint64_t{static_cast<unsigned char>(p[n - 1])} << 16);
  }
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ ((b + n) * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 32);
}
// memcpy of a few bytes is a library call when the size is not known; names are short, so
// copy them with fixed-size (inlined) moves: two overlapping words cover 8 to 16 bytes.
void copy_short(char* dst, std::string_view s) {
  const size_t n = s.size();
  if (n >= 8 && n <= 16) {
    std::memcpy(dst, s.data(), 8);
    std::memcpy(dst + n - 8, s.data() + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    std::memcpy(dst, s.data(), 4);
    std::memcpy(dst + n - 4, s.data() + n - 4, 4);
  } else if (n > 0 && n < 4) {
    for (size_t i = 0; i < n; ++i) dst[i] = s[i];
  } else if (n > 16) {
    std::memcpy(dst, s.data(), n);
  }
}
}  // namespace

NameTable::NameTable(const NameTable& other) {
  *this = other;
}

NameTable& NameTable::operator=(const NameTable& other) {
  if (this == &other) return *this;
  chunks_.clear();
  chunk_used_ = chunk_size_ = stored_bytes_ = 0;
  by_id_.clear();
  slots_.clear();
  for (auto name : other.by_id_) intern(name);  // re-store so views point into our chunks
  return *this;
}

std::string_view NameTable::store(std::string_view name) {
  if (chunks_.empty() || chunk_used_ + name.size() > chunk_size_) {
    chunk_size_ = std::max<size_t>(size_t{16} * 1024, name.size());
    chunks_.push_back(std::make_unique<char[]>(chunk_size_));
    chunk_used_ = 0;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  copy_short(dst, name);
  chunk_used_ += name.size();
  stored_bytes_ += name.size();
  return {dst, name.size()};
}

namespace {
uint32_t high_bits(uint64_t h) {
  return static_cast<uint32_t>(h >> 32);
}
}  // namespace

void NameTable::prefetch(std::string_view name) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[hash_name(name) & (slots_.size() - 1)]);
}

void NameTable::grow_slots() {
  grow_slots_to(slots_.empty() ? 64 : slots_.size() * 2);
}

void NameTable::reserve(size_t count) {
  by_id_.reserve(count);
  size_t capacity = slots_.empty() ? 64 : slots_.size();
  while ((count + 1) * 2 > capacity) capacity *= 2;
  if (capacity > slots_.size()) grow_slots_to(capacity);
}

void NameTable::grow_slots_to(size_t capacity) {
  slots_.assign(capacity, Slot{});
  for (NameId id = 0; id < by_id_.size(); ++id) {
    const uint64_t h = hash_name(by_id_[id]);
    size_t i = h & (capacity - 1);
    while (slots_[i].id != kNone) i = (i + 1) & (capacity - 1);
    slots_[i] = {id, high_bits(h)};
  }
}

NameId NameTable::intern(std::string_view name, bool* added) {
  if ((by_id_.size() + 1) * 2 > slots_.size()) grow_slots();
  const uint64_t h = hash_name(name);
  const uint32_t high = high_bits(h);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (; slots_[i].id != kNone; i = (i + 1) & mask) {
    if (slots_[i].hash == high && by_id_[slots_[i].id] == name) return slots_[i].id;
  }
  auto id = static_cast<NameId>(by_id_.size());
  by_id_.push_back(store(name));
  slots_[i] = {id, high};
  if (added) *added = true;
  return id;
}

NameId NameTable::find(std::string_view name) const {
  if (slots_.empty()) return kNone;
  const uint64_t h = hash_name(name);
  const uint32_t high = high_bits(h);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i].id != kNone; i = (i + 1) & mask) {
    if (slots_[i].hash == high && by_id_[slots_[i].id] == name) return slots_[i].id;
  }
  return kNone;
}

size_t NameTable::memory_bytes() const noexcept {
  return chunks_.size() * chunk_size_ + by_id_.capacity() * sizeof(std::string_view) +
         slots_.capacity() * sizeof(Slot);
}

}  // namespace dudley::layout
