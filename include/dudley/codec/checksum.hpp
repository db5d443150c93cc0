// Checksums of byte runs: MD5 (ASDF blocks), CRC-32C (Castagnoli; Zarr v3's crc32c codec, HDF5's
// Fletcher alternative in newer tools) with the SSE4.2 instruction where the processor has it, and
// the classic CRC-32 (zlib, gzip, PNG) that embedded layouts carry.
#pragma once

#include <array>
#include <cstdint>

#include "dudley/codec/codec.hpp"
#include "dudley/core/digest.hpp"

namespace dudley::codec {

/// CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before; 0 to start).
uint32_t crc32c(ByteView data, uint32_t crc = 0);

/// CRC-32 (ISO-HDLC, as zlib's crc32()) of `data`, continuing from `crc`.
uint32_t crc32(ByteView data, uint32_t crc = 0);

/// Adler-32 (zlib's adler32()) of `data`.
uint32_t adler32(ByteView data);

// MD5 (ASDF block checksums) lives with the other digests in core; the codecs' names for it.
using dudley::md5;
using dudley::Md5;
using dudley::Md5Digest;

/// Whether crc32c() uses the processor's CRC32 instruction.
bool crc32c_in_hardware();

}  // namespace dudley::codec
