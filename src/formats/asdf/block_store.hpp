// The blocks of one ASDF file, shared by the arrays that read from them: their headers, and
// their data, decoded and checked on demand.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "blocks.hpp"
#include "reader.hpp"

namespace dudley::asdf {

/// A block's data, whole and decoded, kept alive by `keep`.
struct BlockData {
  const std::byte* bytes = nullptr;
  uint64_t size = 0;
  std::shared_ptr<void> keep;
};

class BlockStore {
 public:
  BlockStore(std::shared_ptr<io::ByteSource> source, std::vector<BlockHeader> blocks,
             const AsdfOpenOptions& options);
  /// Waits for a block still decoding ahead (read_ahead).
  ~BlockStore();
  BlockStore(const BlockStore&) = delete;
  BlockStore& operator=(const BlockStore&) = delete;

  size_t count() const { return blocks_.size(); }
  const BlockHeader& header(size_t i) const { return blocks_[i]; }
  const std::string& name() const { return source_->name(); }
  /// The file the blocks are read from.
  std::shared_ptr<const io::ByteSource> source() const { return source_; }
  bool compressed(size_t i) const { return !blocks_[i].compression_name().empty(); }

  /// Copies `length` bytes at `offset` of uncompressed block `i` into `out`; when they are
  /// the whole block, its checksum is verified (if asked for).
  void read_uncompressed(size_t i, uint64_t offset, uint64_t length, void* out) const;

  /// Reads the elements `slab` selects of an array of `shape` and `stored` elements lying at
  /// `offset` of uncompressed block `i`, into `out` in native order (io::read_selection):
  /// nothing of the file is mapped, so memory follows the selection, not the block.
  void read_selection(size_t i, uint64_t offset, const DType& stored,
                      const std::vector<int64_t>& shape, const Hyperslab& slab, void* out) const;

  /// Checks uncompressed block `i`'s checksum (if asked for and not done yet) by reading it
  /// in pieces into two reused buffers, one hashed while the next is read: memory stays a
  /// few MiB whatever the block's size.
  /// `md5`, when given, is a fresh context made by the caller's thread for a job of
  /// model::verify_all (see ArraySource::prepare_verify): of several such jobs naming one
  /// block, one hashes it and the others wait for its answer. Otherwise one is made here.
  void verify_streaming(size_t i, codec::Md5* md5 = nullptr) const;

  /// Decodes compressed block `i` into `out` (data_size bytes), verifying its checksum (if
  /// asked for): the whole-array read of a compressed block, with no copy in between.
  void decode_into(size_t i, std::byte* out) const;

  /// Error(kLimit) naming the block when its data_size is more than the caller allows.
  void check_size(size_t i) const;

  /// Block `i`'s whole data: a view of the file for an uncompressed block, the decoded bytes
  /// of a compressed one (the last one decoded is kept for the next array of the same
  /// block). `verify`: check its checksum first (once per block).
  BlockData data(size_t i, bool verify) const;

  /// A hint that block `i` is read next, after the block being read now: when it is one
  /// stream (zlib, bzp2: one core decodes it) of at most kReadAheadBytes, the next data()
  /// of another compressed block starts decoding it on a thread of its own once its own
  /// block is decoded, so that it decodes while the caller hashes and writes the current
  /// one. At most one block is decoded ahead; reads work the same without the hint.
  void read_ahead(size_t i) const;
  /// The largest block decoded ahead: a second decoded block is memory besides the one
  /// block a streaming reader holds, and must fit the 64 MiB a convert may take besides it.
  static constexpr uint64_t kReadAheadBytes = uint64_t{32} << 20;

 private:
  /// The stored (possibly compressed) bytes of block `i`: a view of the mapped file, or a
  /// copy when the source cannot be mapped.
  struct Stored {
    codec::ByteView bytes;
    std::vector<std::byte> copy;
    std::shared_ptr<void> mapping;  // unmapped when the decoder is done with it
  };
  Stored stored_bytes(size_t i) const;
  // verify_streaming's work: hashes block i and checks its checksum (see read_hashing for
  // `use_pool`).
  void hash_streaming(size_t i, codec::Md5* prepared, bool use_pool) const;
  // Reads block i's stored bytes in pieces, piece k to place(k), hashing each into `md5`
  // on a second core while the next is read, and checks the checksum.
  // `use_pool`: false hashes and reads one after the other on this thread alone.
  void read_hashing(size_t i, codec::Md5& md5, const std::function<std::byte*(uint64_t k)>& place,
                    bool use_pool = true) const;
  // Hashes [offset, offset + length) of the file through short-lived mappings and checks
  // block i's checksum; false when the file cannot be mapped (nothing checked).
  bool hash_mapped(const io::ByteSource::FileSpan& span, uint64_t offset, uint64_t length, size_t i,
                   codec::Md5& md5) const;
  // Decodes block i into out; with `verify_now`, checks its checksum as it decodes.
  // `populate`: a second core maps in `out`'s fresh pages ahead of a one-stream decoder.
  void decode(size_t i, std::byte* out, bool verify_now, bool populate = true) const;
  // Under cache_mutex_: makes block `i` the cached block, keeps the one it replaces as a
  // spare buffer when nobody else holds it, and starts the pending read_ahead() block.
  void cache_locked(size_t i, BlockData d) const;
  // Under cache_mutex_: a buffer of at least `size` bytes for a decoded block, the spare
  // when it is large enough (its pages are mapped in already), else nullptr.
  std::shared_ptr<void> take_spare_locked(uint64_t size) const;
  void start_ahead_locked() const;
  void verify(size_t i, const std::byte* data, uint64_t size) const;
  // Whether block i's checksum is still to be checked.
  bool needs_verifying(size_t i) const;
  // Throws unless `got` is block i's checksum; marks it verified.
  void check_digest(size_t i, const codec::Md5Digest& got) const;

  std::shared_ptr<io::ByteSource> source_;
  std::vector<BlockHeader> blocks_;
  bool verify_checksums_;
  uint64_t max_block_bytes_;
  // Each block's checksum: kUnchecked, kChecking (a thread of verify_streaming hashes it;
  // others asking for the same block wait for it) or kVerified.
  enum CheckState : uint8_t { kUnchecked, kChecking, kVerified };
  mutable std::unique_ptr<std::atomic<uint8_t>[]> verified_;
  mutable std::mutex cache_mutex_;
  mutable size_t cached_index_ = SIZE_MAX;
  mutable BlockData cached_;
  // A decoded block's memory, kept for the next (fresh pages cost more than decoding).
  mutable std::shared_ptr<void> spare_;
  mutable uint64_t spare_size_ = 0;
  // The block read_ahead() named, not started yet; the block decoding ahead, its memory and
  // its decoder's outcome.
  mutable size_t ahead_wanted_ = SIZE_MAX;
  mutable size_t ahead_index_ = SIZE_MAX;
  mutable std::shared_ptr<void> ahead_buffer_;
  mutable std::future<void> ahead_done_;
};

}  // namespace dudley::asdf
