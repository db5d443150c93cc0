#include "dudley/layout/bind/reader.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/selection_read.hpp"

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
  slab.check_fits(a.shape);
  NDArray out(native_form(a.dtype), Shape(slab.result_shape()));
  if (out.element_count() == 0 || a.dtype.size() == 0) return out;  // nothing to read
  io::read_selection(source, a.address, a.dtype, a.shape, slab, out.mutable_data());
  return out;
}

void read_bound_into(const io::ByteSource& source, const BoundArray& a, const Hyperslab& slab,
                     void* out) {
  slab.check_fits(a.shape);
  io::read_selection(source, a.address, a.dtype, a.shape, slab, out);
}

void read_array_into(Binding& binding, NodeId node, const Hyperslab& slab, void* out) {
  const BoundArray a = binding.array(node);
  naming_item(binding, node, [&] { read_bound_into(binding.source(), a, slab, out); });
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
