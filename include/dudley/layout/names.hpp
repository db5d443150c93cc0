// Interned symbol names: the layout stores each distinct name once and refers to it by a
// small integer, which keeps the model compact and makes name lookups integer compares.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace dudley::layout {

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

  /// Id of `name`, adding it when new.
  NameId intern(std::string_view name);
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

  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t stored_bytes_ = 0;
  std::vector<std::string_view> by_id_;
  std::vector<uint32_t> hash_of_id_;  // low bits of each name's hash, to skip compares
  std::vector<NameId> slots_;         // open addressing: ids, kNone when empty
};

}  // namespace dudley::layout
