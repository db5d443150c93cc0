#include "dudley/layout/reader.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"

namespace dudley::layout {

namespace {

DType native_form(const DType& stored) {
  return stored.needs_swap() ? stored.with_byte_order(native_byte_order()) : stored;
}

}  // namespace

NDArray read_array(Binding& binding, NodeId node) {
  BoundArray a = binding.array(node);
  NDArray out(native_form(a.dtype), Shape(a.shape));
  const std::string what = "data item " + binding.layout().path(node);
  if (!a.dtype.needs_swap()) {
    binding.source().read(a.address, a.byte_size, out.mutable_data(), what);
    return out;
  }
  // Swap each chunk right after reading it, while it is still in cache: one pass over
  // memory instead of two.
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  const uint64_t element = a.dtype.size();
  const uint64_t per_chunk = std::max<uint64_t>(1, kChunk / element) * element;
  auto* dst = static_cast<unsigned char*>(out.mutable_data());
  binding.source().check_range(a.address, a.byte_size, what);
  for (uint64_t done = 0; done < a.byte_size; done += per_chunk) {
    const uint64_t n = std::min(per_chunk, a.byte_size - done);
    binding.source().read(a.address + done, n, dst + done, what);
    swap_elements(dst + done, n / element, a.dtype);
  }
  return out;
}

NDArray read_array(Binding& binding, NodeId node, const Hyperslab& slab) {
  BoundArray a = binding.array(node);
  const size_t rank = a.shape.size();
  if (slab.start.size() != rank || slab.count.size() != rank ||
      (!slab.stride.empty() && slab.stride.size() != rank)) {
    throw Error(ErrorCategory::kUsage, "selection rank does not match the array");
  }
  std::vector<int64_t> stride(rank, 1);
  if (!slab.stride.empty()) stride = slab.stride;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t last = slab.start[d] + (slab.count[d] - 1) * stride[d];
    if (slab.start[d] < 0 || slab.count[d] < 0 || stride[d] <= 0 ||
        (slab.count[d] > 0 && last >= a.shape[d])) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("selection does not fit dimension {} of size {}", d, a.shape[d]));
    }
  }
  NDArray out(native_form(a.dtype), Shape(slab.count));
  if (out.element_count() == 0) return out;
  if (rank == 0) return read_array(binding, node);
  const uint64_t element = a.dtype.size();
  const std::vector<int64_t> file_strides = Shape(a.shape).c_strides(element);
  const io::ByteSource& source = binding.source();
  auto* dst = static_cast<unsigned char*>(out.mutable_data());
  // Iterate over every index of the leading dimensions; the last dimension is one run when
  // its stride is 1, so whole rows are read in one call.
  const int64_t last_count = slab.count[rank - 1];
  const bool contiguous_rows = stride[rank - 1] == 1;
  std::vector<int64_t> index(rank - 1, 0);
  for (;;) {
    uint64_t offset = a.address;
    for (size_t d = 0; d + 1 < rank; ++d) {
      offset += static_cast<uint64_t>((slab.start[d] + index[d] * stride[d]) * file_strides[d]);
    }
    offset += static_cast<uint64_t>(slab.start[rank - 1]) * element;
    if (contiguous_rows) {
      const uint64_t bytes = static_cast<uint64_t>(last_count) * element;
      source.read(offset, bytes, dst);
      dst += bytes;
    } else {
      for (int64_t i = 0; i < last_count; ++i) {
        source.read(offset + static_cast<uint64_t>(i * stride[rank - 1]) * element, element, dst);
        dst += element;
      }
    }
    // Next index of the leading dimensions (odometer, fastest last); done when it wraps.
    bool wrapped = true;
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < slab.count[d]) {
        wrapped = false;
        break;
      }
      index[d] = 0;
    }
    if (wrapped) break;
  }
  swap_elements(out.mutable_data(), out.element_count(), a.dtype);
  return out;
}

NDArray view_array(Binding& binding, NodeId node, std::shared_ptr<io::ByteSource> keep_alive) {
  BoundArray a = binding.array(node);
  const unsigned char* p = binding.source().view(a.address, a.byte_size);
  if (!p) {
    throw Error(ErrorCategory::kUsage,
                binding.layout().path(node) + ": the data is not memory-mapped; use read_array");
  }
  return NDArray::borrow(const_cast<unsigned char*>(p), a.dtype, Shape(a.shape), {},
                         std::move(keep_alive));
}

}  // namespace dudley::layout
