// Writing an array's data as one ASDF block, read from its source piece by piece into two
// reused buffers: memory stays two pieces whatever the array's size.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dudley/formats/asdf/writer.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::asdf {

class BlockStreamer {
 public:
  BlockStreamer(io::AtomicFile& out, const AsdfSaveOptions& options)
      : out_(out), options_(options) {}

  /// Writes the block holding `source`'s data (an array of `shape`, `bytes` in all, read in
  /// native order) at `at`; returns where the block ends. The source is verified first (an
  /// ASDF input's checksum), so a damaged array fails before its block is written.
  /// Uncompressed and lz4 blocks stream; zlib and bzp2 ones are compressed from the whole
  /// array in memory (one stream each: the codec layer has no streaming encoder yet).
  /// `advanced(n)` is called as each n bytes of the array are done.
  uint64_t write(uint64_t at, model::ArraySource& source, const std::vector<int64_t>& shape,
                 uint64_t bytes, const std::function<void(uint64_t)>& advanced);

 private:
  io::AtomicFile& out_;
  const AsdfSaveOptions& options_;
  std::vector<std::byte> buffers_[2];
};

}  // namespace dudley::asdf
