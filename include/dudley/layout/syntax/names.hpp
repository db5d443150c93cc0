// Interned symbol names: the layout stores each distinct name once and refers to it by a
// small integer, which keeps the model compact and makes name lookups integer compares.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "dudley/core/big_memory.hpp"

namespace dudley::layout {

/// The parser's large tables: filled as soon as they are reserved, so huge-page backed
/// (TableAllocator), which a fresh process pays far fewer page faults for.
template <typename T>
using Table = std::vector<T, TableAllocator<T>>;

using NameId = uint32_t;
/// "No such thing" for every 32-bit id of the layout model.
inline constexpr uint32_t kNone = 0xFFFFFFFFu;

/// An append-only set of strings with stable ids and stable storage.
class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable& other);
  NameTable& operator=(const NameTable& other);
  NameTable(NameTable&&) noexcept = default;
  NameTable& operator=(NameTable&&) noexcept = default;

  /// Id of `name`, adding it when new (then `*added`, when given, is set true).
  NameId intern(std::string_view name, bool* added = nullptr);
  /// Starts loading the table slot where `name` would be (a hint; no effect on results).
  void prefetch(std::string_view name) const;
  /// Makes room for `count` names in all, so interning them does not regrow the tables.
  void reserve(size_t count);
  /// Id of `name`, or kNone when it was never interned.
  NameId find(std::string_view name) const;
  /// The text of an id (valid for the table's lifetime).
  std::string_view text(NameId id) const { return by_id_[id]; }
  size_t size() const noexcept { return by_id_.size(); }
  /// Bytes held, for memory accounting.
  size_t memory_bytes() const noexcept;

 private:
  std::string_view store(std::string_view name);
  void grow_slots();
  void grow_slots_to(size_t capacity);  ///< a power of two

  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t stored_bytes_ = 0;
  Table<std::string_view> by_id_;
  // Open addressing. A slot holds an id and the high bits of its name's hash, so a probe
  // compares names only on a likely match and never looks up the id's entry otherwise.
  struct Slot {
    NameId id = kNone;
    uint32_t hash = 0;
  };
  Table<Slot> slots_;
};

}  // namespace dudley::layout
