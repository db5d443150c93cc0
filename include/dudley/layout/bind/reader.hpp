// Reading bound arrays into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/layout/bind/binder.hpp"

namespace dudley::layout {

/// Reads a whole data item into a new array in native byte order.
NDArray read_array(Binding& binding, NodeId node);

/// Reads the bytes of an already located item (from Binding::array) into a new array in
/// native byte order. Throws Error(kData / kIo) naming the source and offset.
NDArray read_bound(const io::ByteSource& source, BoundArray array);

/// Reads a selection of an already located item (negative steps read backwards), shaped by
/// slab.result_shape() (numpy's shape for the same indexing), in native byte order. Throws
/// Error(kUsage) when the slab does not fit the shape.
NDArray read_bound(const io::ByteSource& source, const BoundArray& array, const Hyperslab& slab);

/// Reads a whole data item into caller memory (at least its byte size; no allocation), in
/// native byte order: the fast way to read one array from each of many files. Returns the
/// item's location, with the dtype in native order. Throws Error(kUsage) when `out` is too
/// small, Error(kData / kIo) as read_array does.
BoundArray read_array_into(Binding& binding, NodeId node, std::span<std::byte> out);

/// Reads a hyperslab of a data item into a new C-contiguous array in native byte order,
/// shaped by slab.result_shape(). Throws Error(kUsage) when the slab does not fit the shape.
NDArray read_array(Binding& binding, NodeId node, const Hyperslab& slab);

/// Reads a selection of an already located item into caller memory (slab.result_shape()
/// elements, C order, native byte order; no allocation for the output). Throws
/// Error(kUsage) when the slab does not fit the shape, Error(kData / kIo) on a failed read.
void read_bound_into(const io::ByteSource& source, const BoundArray& array, const Hyperslab& slab,
                     void* out);

/// Reads a selection of a data item into caller memory, as read_bound_into; errors name
/// the item.
void read_array_into(Binding& binding, NodeId node, const Hyperslab& slab, void* out);

/// A zero-copy, read-only view of a data item in its stored byte order, when the source is
/// memory-mapped (or a buffer); the view keeps `keep_alive` (the source) alive. Writing
/// through it is undefined: file mappings are read-only. Throws Error(kUsage) when the source has
/// no memory to view.
NDArray view_array(Binding& binding, NodeId node, std::shared_ptr<io::ByteSource> keep_alive);

}  // namespace dudley::layout
