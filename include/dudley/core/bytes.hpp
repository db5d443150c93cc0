// Byte buffers that grow without zero-filling: what readers, stores and codecs fill.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "dudley/core/big_memory.hpp"

namespace dudley {

/// An allocator that leaves new elements uninitialised: an encoder sizes its output to the
/// codec's worst case and then writes it, so zero-filling it first would be wasted work.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialise: no zeroing
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  // Large buffers come from huge-page-advised mappings (big_memory.hpp): a buffer filled
  // right after it is made faults once per 2 MiB instead of once per 4 KiB, which is most
  // of the cost of writing into new memory.
  T* allocate(size_t n) { return static_cast<T*>(allocate_table(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { free_table(p, n * sizeof(T)); }
};

template <typename T, typename U>
bool operator==(const UninitializedAllocator<T>&, const UninitializedAllocator<U>&) noexcept {
  return true;
}

/// Bytes read, encoded or decoded.
using Bytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

}  // namespace dudley
