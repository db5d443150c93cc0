// The Avro format's registration with the format registry.
#pragma once

#include "dudley/format.hpp"

namespace dudley::avro {

/// The most bytes a compressed block may decode to unless the reader is told otherwise
/// (--max-block-size): Avro's writers flush a block every 16 to 64 KB of records by
/// default, and a block of ndarray records holds at least one whole array.
inline constexpr uint64_t kDefaultMaxBlockBytes = uint64_t{256} << 20;

/// How Avro containers are read.
struct AvroOpenOptions : FormatOptions {
  static constexpr const char* kFormat = "avro";
  /// The most bytes a compressed block may decode to (--max-block-size).
  uint64_t max_block_bytes = kDefaultMaxBlockBytes;
};

/// Adds the "avro" format: Object Container Files (extension .avro, magic "Obj\x01").
void register_avro_format(FormatRegistry& registry);

}  // namespace dudley::avro
