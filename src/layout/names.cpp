#include "dudley/layout/names.hpp"

#include <algorithm>
#include <cstring>

namespace dudley::layout {

NameTable::NameTable(const NameTable& other) { *this = other; }

NameTable& NameTable::operator=(const NameTable& other) {
  if (this == &other) return *this;
  chunks_.clear();
  chunk_used_ = chunk_size_ = stored_bytes_ = 0;
  by_id_.clear();
  ids_.clear();
  for (auto name : other.by_id_) intern(name);  // re-store so views point into our chunks
  return *this;
}

std::string_view NameTable::store(std::string_view name) {
  if (chunks_.empty() || chunk_used_ + name.size() > chunk_size_) {
    chunk_size_ = std::max<size_t>(64 * 1024, name.size());
    chunks_.push_back(std::make_unique<char[]>(chunk_size_));
    chunk_used_ = 0;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  if (!name.empty()) std::memcpy(dst, name.data(), name.size());
  chunk_used_ += name.size();
  stored_bytes_ += name.size();
  return {dst, name.size()};
}

NameId NameTable::intern(std::string_view name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  auto id = static_cast<NameId>(by_id_.size());
  auto stored = store(name);
  by_id_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

NameId NameTable::find(std::string_view name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? kNone : it->second;
}

size_t NameTable::memory_bytes() const noexcept {
  return chunks_.size() * chunk_size_ + by_id_.capacity() * sizeof(std::string_view) +
         ids_.size() * (sizeof(std::string_view) + sizeof(NameId) + 2 * sizeof(void*)) +
         ids_.bucket_count() * sizeof(void*);
}

}  // namespace dudley::layout
