// Checksums of byte runs: CRC-32C (Castagnoli; Zarr v3's crc32c codec, HDF5's Fletcher
// alternative in newer tools) with the SSE4.2 instruction where the processor has it, and
// the classic CRC-32 (zlib, gzip, PNG) that embedded layouts carry.
#pragma once

#include <cstdint>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

/// CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before; 0 to start).
uint32_t crc32c(ByteView data, uint32_t crc = 0);

/// CRC-32 (ISO-HDLC, as zlib's crc32()) of `data`, continuing from `crc`.
uint32_t crc32(ByteView data, uint32_t crc = 0);

/// Whether crc32c() uses the processor's CRC32 instruction.
bool crc32c_in_hardware();

}  // namespace dudley::codec
