// Writing an array's data as one ASDF block, read from its source piece by piece into two
// reused buffers: memory stays two pieces whatever the array's size.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dudley/formats/asdf.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::asdf {

/// Writes one block (header and data, compressed as `options` says) at `at` of `out`;
/// returns where it ends.
uint64_t write_block(io::AtomicFile& out, uint64_t at, std::span<const std::byte> raw,
                     const AsdfSaveOptions& options);

class BlockStreamer {
 public:
  BlockStreamer(io::AtomicFile& out, const AsdfSaveOptions& options)
      : out_(out), options_(options) {}

  /// Writes the block holding `source`'s data (an array of `shape`, `bytes` in all, read in
  /// native order) at `at`; returns where the block ends. The source is verified first (an
  /// ASDF input's checksum), so a damaged array fails before its block is written.
  /// Every block streams: uncompressed and lz4 blocks piece by piece, zlib and bzp2 ones of
  /// more than kWholeBlockBytes through a streaming encoder (codec::StreamEncoder); smaller
  /// zlib and bzp2 blocks are compressed whole, by the faster whole-buffer encoders.
  /// `advanced(n)` is called as each n bytes of the array are done.
  uint64_t write(uint64_t at, model::ArraySource& source, const std::vector<int64_t>& shape,
                 uint64_t bytes, const std::function<void(uint64_t)>& advanced);

  /// The largest zlib or bzp2 block compressed whole: one such block in memory stays within
  /// what a streaming convert may hold besides its 64 MiB.
  static constexpr uint64_t kWholeBlockBytes = uint64_t{32} << 20;

 private:
  io::AtomicFile& out_;
  const AsdfSaveOptions& options_;
  std::vector<std::byte> buffers_[2];
};

}  // namespace dudley::asdf
