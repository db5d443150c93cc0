// Finding where an HDF5 object header stores a dataset's extents: any bytes give offsets
// (whose stored sizes equal the dims asked for) or nothing; never a read outside them. The
// first byte picks the rank (0-4), the next 8 per dimension the dims asked for, the rest is
// the header.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "formats/hdf5/stored_extents.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t rank = data[0] % 5;
  if (size < 1 + 8 * rank) return 0;
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) std::memcpy(&dims[d], data + 1 + 8 * d, 8);
  const auto* header = reinterpret_cast<const std::byte*>(data + 1 + 8 * rank);
  const size_t length = size - 1 - 8 * rank;
  const auto offsets = dudley::hdf5::stored_extent_offsets(std::span(header, length), 4096, dims);
  if (offsets && offsets->size() != rank) std::abort();
  return 0;
}
