#include "dudley/core/box_copy.hpp"

#include <cstring>

namespace dudley {

void copy_box(const BoxEnd<const std::byte>& from, const BoxEnd<std::byte>& to,
              const std::vector<int64_t>& count, uint64_t element) {
  const size_t rank = count.size();
  if (rank == 0) {
    std::memcpy(to.data, from.data, element);
    return;
  }
  for (int64_t c : count) {
    if (c <= 0) return;
  }
  auto corner = [](const auto& end, size_t d) {
    return end.corner.empty() ? int64_t{0} : end.corner[d];
  };
  // Element strides of both arrays.
  std::vector<uint64_t> from_stride(rank, 1), to_stride(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) {
    from_stride[d] = from_stride[d + 1] * static_cast<uint64_t>(from.shape[d + 1]);
    to_stride[d] = to_stride[d + 1] * static_cast<uint64_t>(to.shape[d + 1]);
  }
  const uint64_t run = static_cast<uint64_t>(count[rank - 1]) * element;
  std::vector<int64_t> i(rank, 0);
  for (;;) {
    uint64_t src = 0, dst = 0;
    for (size_t d = 0; d < rank; ++d) {
      src += static_cast<uint64_t>(corner(from, d) + i[d]) * from_stride[d];
      dst += static_cast<uint64_t>(corner(to, d) + i[d]) * to_stride[d];
    }
    std::memcpy(to.data + dst * element, from.data + src * element, run);
    // The next row: the dimensions before the last, as an odometer.
    size_t d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++i[d] < count[d]) break;
      i[d] = 0;
    }
  }
}

bool all_equal_to(const std::byte* data, uint64_t bytes, const std::byte* value, uint64_t element) {
  if (bytes < element) return true;
  // The first element is the value and every byte equals the one an element later.
  return std::memcmp(data, value, element) == 0 &&
         std::memcmp(data, data + element, bytes - element) == 0;
}

}  // namespace dudley
