// Byte-order conversion of element buffers, used on the read and write hot paths.
#pragma once

#include <cstdint>

#include "dudley/core/dtype.hpp"

namespace dudley {

/// Reverses the bytes of each `unit`-byte word in place (unit 1, 2, 4, 8 or 16).
void swap_units(void* data, uint64_t unit_count, unsigned unit);

/// Converts `count` contiguous elements of `type` between their stored order and the
/// opposite order, in place: scalars swap each unit (complex: each half), compounds swap
/// each field that needs it, fixed arrays swap their base. Only parts whose
/// DType::needs_swap() is true are touched, so it is a no-op for native data.
void swap_elements(void* data, uint64_t count, const DType& type);

}  // namespace dudley
