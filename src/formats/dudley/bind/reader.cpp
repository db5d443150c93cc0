#include "dudley/formats/dudley/bind/reader.hpp"

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

// Reads the item's bytes into `dst` and brings them to native order. Swaps each chunk right
// after reading it, while it is still in cache: one pass over memory instead of two.
void read_native(const io::ByteSource& source, const BoundArray& a, void* dst) {
  if (a.byte_size == 0) return;  // also the only case of a 0-byte element (an empty struct)
  if (!a.dtype.needs_swap()) {
    if (source.read_some(a.address, a.byte_size, dst) < a.byte_size) {
      source.check_range(a.address, a.byte_size, "data item");
      throw Error(ErrorCategory::kIo, "the file shrank while being read",
                  Location::binary(source.name(), a.address));
    }
    return;
  }
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  const uint64_t element = a.dtype.size();
  const uint64_t per_chunk = std::max<uint64_t>(1, kChunk / element) * element;
  auto* out = static_cast<unsigned char*>(dst);
  source.check_range(a.address, a.byte_size, "data item");
  for (uint64_t done = 0; done < a.byte_size; done += per_chunk) {
    const uint64_t n = std::min(per_chunk, a.byte_size - done);
    source.read(a.address + done, n, out + done);
    swap_elements(out + done, n / element, a.dtype);
  }
}

// Reads `count` elements of `element` bytes, the row's elements first, first + step, ...
// (step may be negative), from the row starting at `row`, into dst in that order. Close
// elements are read as one span and picked from it, so a strided selection costs a few
// large reads rather than one call per element; far apart ones are read one by one.
void read_row(const io::ByteSource& source, uint64_t row, int64_t first, int64_t step,
              int64_t count, uint64_t element, unsigned char* dst,
              std::vector<unsigned char>& scratch) {
  if (step == 1) {
    source.read(row + static_cast<uint64_t>(first) * element,
                static_cast<uint64_t>(count) * element, dst);
    return;
  }
  constexpr uint64_t kSpan = uint64_t{1} << 20;  // bytes read at once
  const uint64_t gap =
      (step > 0 ? static_cast<uint64_t>(step) : static_cast<uint64_t>(-(step + 1)) + 1);
  if (gap > kSpan / element / 4) {  // sparse: a span would be mostly skipped bytes
    for (int64_t i = 0; i < count; ++i) {
      source.read(row + static_cast<uint64_t>(first + i * step) * element, element, dst);
      dst += element;
    }
    return;
  }
  // Elements per span: the span covers (per - 1) * gap + 1 elements.
  const auto per = static_cast<int64_t>((kSpan / element - 1) / gap + 1);
  for (int64_t done = 0; done < count; done += per) {
    const int64_t n = std::min(per, count - done);
    const int64_t a = first + done * step, b = first + (done + n - 1) * step;
    const int64_t low = std::min(a, b);
    const uint64_t span = (static_cast<uint64_t>(n - 1) * gap + 1) * element;
    scratch.resize(span);
    source.read(row + static_cast<uint64_t>(low) * element, span, scratch.data());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst, scratch.data() + static_cast<uint64_t>(a + i * step - low) * element,
                  element);
      dst += element;
    }
  }
}

// array() has checked that the item lies inside the data; a read can still fail (an I/O
// error, a file truncated meanwhile), and its message then gets the item's name.
template <typename F>
auto naming_item(const Binding& binding, NodeId node, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.category(),
                fmt::format("data item {}: {}", binding.layout().path(node), e.message()),
                e.location());
  }
}

}  // namespace

NDArray read_array(Binding& binding, NodeId node) {
  BoundArray a = binding.array(node);
  return naming_item(binding, node, [&] { return read_bound(binding.source(), std::move(a)); });
}

NDArray read_bound(const io::ByteSource& source, BoundArray a) {
  NDArray out(native_form(a.dtype), Shape(std::move(a.shape)));
  read_native(source, a, out.mutable_data());
  return out;
}

BoundArray read_array_into(Binding& binding, NodeId node, std::span<std::byte> out) {
  // locate(): no allocation depends on the item's size here, so the read itself can say
  // whether the bytes are there (a short read), and the file's length is never looked up.
  BoundArray a = binding.locate(node);
  if (out.size() < a.byte_size) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} needs {} bytes; the buffer has {}", binding.layout().path(node),
                            a.byte_size, out.size()));
  }
  naming_item(binding, node, [&] { read_native(binding.source(), a, out.data()); });
  a.dtype = native_form(a.dtype);
  return a;
}

NDArray read_array(Binding& binding, NodeId node, const Hyperslab& slab) {
  BoundArray a = binding.array(node);
  return naming_item(binding, node, [&] { return read_bound(binding.source(), a, slab); });
}

NDArray read_bound(const io::ByteSource& source, const BoundArray& a, const Hyperslab& slab) {
  const size_t rank = a.shape.size();
  slab.check_fits(a.shape);
  NDArray out(native_form(a.dtype), Shape(slab.result_shape()));
  const uint64_t element = a.dtype.size();
  if (out.element_count() == 0 || element == 0) return out;  // nothing to read
  if (rank == 0) return read_bound(source, a);
  const std::vector<int64_t> file_strides = Shape(a.shape).c_strides(element);
  auto* dst = static_cast<unsigned char*>(out.mutable_data());
  std::vector<unsigned char> scratch;
  const int64_t last_count = slab.count[rank - 1];
  const uint64_t row_bytes = static_cast<uint64_t>(last_count) * element;
  // Every index of the leading dimensions (an odometer, fastest last); each one is a row of
  // the last dimension, read by read_row.
  std::vector<int64_t> index(rank - 1, 0);
  for (;;) {
    uint64_t row = a.address;
    for (size_t d = 0; d + 1 < rank; ++d) {
      // Inside the array (check_fits), so the element index is in [0, shape[d]).
      row += static_cast<uint64_t>(slab.start[d] + index[d] * slab.step(d)) *
             static_cast<uint64_t>(file_strides[d]);
    }
    read_row(source, row, slab.start[rank - 1], slab.step(rank - 1), last_count, element, dst,
             scratch);
    dst += row_bytes;
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
