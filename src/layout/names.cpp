#include "dudley/layout/names.hpp"

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
  uint64_t a = 0, b = 0;
  std::memcpy(&a, name.data(), n < 8 ? n : 8);
  if (n > 8) std::memcpy(&b, name.data() + 8, n - 8);
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ ((b + n) * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 32);
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
  hash_of_id_.clear();
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
  if (!name.empty()) std::memcpy(dst, name.data(), name.size());
  chunk_used_ += name.size();
  stored_bytes_ += name.size();
  return {dst, name.size()};
}

void NameTable::grow_slots() {
  size_t capacity = slots_.empty() ? 64 : slots_.size() * 2;
  slots_.assign(capacity, kNone);
  for (NameId id = 0; id < by_id_.size(); ++id) {
    size_t i = hash_name(by_id_[id]) & (capacity - 1);
    while (slots_[i] != kNone) i = (i + 1) & (capacity - 1);
    slots_[i] = id;
  }
}

NameId NameTable::intern(std::string_view name) {
  if ((by_id_.size() + 1) * 2 > slots_.size()) grow_slots();
  const uint64_t h = hash_name(name);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (; slots_[i] != kNone; i = (i + 1) & mask) {
    NameId id = slots_[i];
    if (hash_of_id_[id] == static_cast<uint32_t>(h) && by_id_[id] == name) return id;
  }
  auto id = static_cast<NameId>(by_id_.size());
  by_id_.push_back(store(name));
  hash_of_id_.push_back(static_cast<uint32_t>(h));
  slots_[i] = id;
  return id;
}

NameId NameTable::find(std::string_view name) const {
  if (slots_.empty()) return kNone;
  const uint64_t h = hash_name(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i] != kNone; i = (i + 1) & mask) {
    NameId id = slots_[i];
    if (hash_of_id_[id] == static_cast<uint32_t>(h) && by_id_[id] == name) return id;
  }
  return kNone;
}

size_t NameTable::memory_bytes() const noexcept {
  return chunks_.size() * chunk_size_ + by_id_.capacity() * sizeof(std::string_view) +
         hash_of_id_.capacity() * sizeof(uint32_t) + slots_.capacity() * sizeof(NameId);
}

}  // namespace dudley::layout
