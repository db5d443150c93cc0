#include "dudley/model/outer_read.hpp"

#include <cstring>
#include <string>

#include "dudley/core/box_copy.hpp"
#include "dudley/core/error.hpp"

namespace dudley::model {
namespace {

// Coordinates further apart than this many bytes of the result are read by separate requests:
// below it, reading the gap costs less than another request (a syscall, an HDF5 selection).
constexpr uint64_t kGapBytes = uint64_t{64} << 10;

// One run read along one dimension, and where its elements go in the result.
struct Block {
  int64_t start = 0;
  int64_t count = 0;
  int64_t stride = 1;
  int64_t out_at = 0;
};

uint64_t checked_product(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw Error(ErrorCategory::kUsage, "the selection is larger than memory can address");
  }
  return r;
}

// The blocks of a coordinate dimension: coordinates grouped into runs, and their positions.
// `chunk`: the source's chunk extent along it (0 when not chunked); `inner_bytes`: the bytes
// one coordinate of it spans in the result.
std::vector<Block> coordinate_blocks(const std::vector<int64_t>& coords, int64_t extent,
                                     int64_t chunk, uint64_t inner_bytes, size_t dim,
                                     std::vector<int64_t>& positions) {
  std::vector<Block> blocks;
  positions.resize(coords.size());
  int64_t out_at = 0;
  for (size_t i = 0; i < coords.size(); ++i) {
    const int64_t c = coords[i];
    if (c < 0 || c >= extent) {
      throw Error(ErrorCategory::kUsage, "index " + std::to_string(c) +
                                             " is out of bounds for axis " + std::to_string(dim) +
                                             " with size " + std::to_string(extent));
    }
    if (!blocks.empty()) {
      Block& b = blocks.back();
      const int64_t last = b.start + b.count - 1;
      if (c <= last) {
        throw Error(ErrorCategory::kUsage, "outer coordinates must ascend without repeats");
      }
      const auto gap = static_cast<uint64_t>(c - last - 1);
      // Chunked: one chunk's coordinates together (it is decoded whole either way), never
      // across chunks not asked for. A run of bytes: gaps that cost less than a request.
      const bool merge = chunk > 0 ? c / chunk == b.start / chunk
                                   : gap <= kGapBytes / std::max<uint64_t>(inner_bytes, 1);
      if (gap == 0 || merge) {
        out_at += c - last;
        b.count = c - b.start + 1;
        positions[i] = out_at - 1;
        continue;
      }
    }
    blocks.push_back({c, 1, 1, out_at});
    positions[i] = out_at;
    ++out_at;
  }
  return blocks;
}

}  // namespace

OuterResult read_outer(ArraySource& source, const DType& type, const std::vector<int64_t>& shape,
                       const std::vector<OuterAxis>& axes) {
  const size_t rank = shape.size();
  if (axes.size() != rank) {
    throw Error(ErrorCategory::kUsage, "an outer selection names " + std::to_string(axes.size()) +
                                           " dimensions of a " + std::to_string(rank) +
                                           "-dimensional array");
  }
  const uint64_t element_size = type.size();
  const ReadUnit unit = source.read_unit();
  // The bytes one step along each dimension spans in the result, counting what was asked.
  std::vector<uint64_t> inner(rank + 1, element_size);
  for (size_t d = rank; d-- > 0;) {
    const size_t asked =
        axes[d].coords.empty() ? static_cast<size_t>(axes[d].count) : axes[d].coords.size();
    inner[d] = checked_product(inner[d + 1], asked);
  }
  OuterResult result;
  result.positions.resize(rank);
  std::vector<std::vector<Block>> blocks(rank);
  std::vector<int64_t> extents(rank);
  for (size_t d = 0; d < rank; ++d) {
    const OuterAxis& a = axes[d];
    if (a.coords.empty()) {
      blocks[d].push_back({a.start, a.count, a.stride, 0});
      extents[d] = a.count;
      continue;
    }
    const int64_t chunk = d < unit.shape.size() ? unit.shape[d] : 0;
    blocks[d] = coordinate_blocks(a.coords, shape[d], chunk, inner[d + 1], d, result.positions[d]);
    extents[d] = blocks[d].back().out_at + blocks[d].back().count;
  }
  uint64_t elements = 1;
  for (int64_t n : extents) elements = checked_product(elements, static_cast<uint64_t>(n));
  checked_product(elements, element_size);
  result.data = NDArray(type, Shape(extents));
  std::vector<uint64_t> out_step(rank + 1, element_size);  // the result's strides in bytes
  for (size_t d = rank; d-- > 0;) out_step[d] = out_step[d + 1] * static_cast<uint64_t>(extents[d]);
  out_step.erase(out_step.begin());
  if (elements == 0) return result;
  auto* out = static_cast<std::byte*>(result.data.mutable_data());

  std::vector<size_t> which(rank, 0);  // the block of each dimension read now (an odometer)
  std::vector<std::byte> scratch;
  Hyperslab slab;
  slab.start.resize(rank);
  slab.count.resize(rank);
  slab.stride.resize(rank);
  std::vector<int64_t> origin(rank);
  for (;;) {
    for (size_t d = 0; d < rank; ++d) {
      const Block& b = blocks[d][which[d]];
      slab.start[d] = b.start;
      slab.count[d] = b.count;
      slab.stride[d] = b.stride;
      origin[d] = b.out_at;
    }
    // The block is one run of the result when, before some dimension k, it takes one index,
    // and after k every index: then it is read in place.
    size_t k = 0;
    while (k < rank && slab.count[k] == 1) ++k;
    bool in_place = true;
    for (size_t d = k + 1; d < rank; ++d) in_place = in_place && slab.count[d] == extents[d];
    uint64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += static_cast<uint64_t>(origin[d]) * out_step[d];
    ++result.reads;
    if (in_place || rank == 0) {
      source.read_into(slab, out + offset);
    } else {
      uint64_t bytes = element_size;
      for (int64_t n : slab.count) bytes *= static_cast<uint64_t>(n);
      scratch.resize(bytes);
      source.read_into(slab, scratch.data());
      copy_box({scratch.data(), slab.count, {}}, {out, extents, origin}, slab.count, element_size);
    }
    size_t d = rank;
    for (;;) {
      if (d == 0) return result;
      --d;
      if (++which[d] < blocks[d].size()) break;
      which[d] = 0;
    }
  }
}

}  // namespace dudley::model
