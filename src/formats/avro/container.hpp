// Avro Object Container Files: a header (magic, metadata with the writer's schema and
// codec, a 16-byte sync marker), then blocks of records, each a count, a size, the records
// (compressed by the codec) and the sync marker again. The reader walks block headers
// without decoding records, so a file of millions of records is listed lazily and record N
// is found by skipping whole blocks; the writer streams records into blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dudley/codec/codec.hpp"
#include "dudley/formats/avro.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/model/value.hpp"
#include "schema.hpp"

namespace dudley::avro {

/// The container codecs this build reads and writes: "null", "deflate", "bzip2",
/// "zstandard" (the Avro names).
const std::vector<std::string>& container_codecs();

/// The file's magic bytes: "Obj" and 1.
inline constexpr char kMagic[4] = {'O', 'b', 'j', '\x01'};

/// A container file opened for reading.
class ContainerReader {
 public:
  /// Reads and checks the header of `source`. Throws Error(kData) at the byte where the
  /// header is wrong (magic, metadata map, missing avro.schema), Error(kType) for a codec
  /// this build lacks (naming it), the schema's errors for avro.schema.
  /// `max_block_bytes`: the most a compressed block may decode to (a block of records of a
  /// bounded schema is bounded by its record count too).
  explicit ContainerReader(std::shared_ptr<const io::ByteSource> source,
                           uint64_t max_block_bytes = kDefaultMaxBlockBytes);

  const Schema& schema() const noexcept { return schema_; }
  const std::string& codec() const noexcept { return codec_; }
  /// The header's metadata other than avro.schema and avro.codec (bytes as given; UTF-8
  /// text as strings).
  const model::ValueMap& metadata() const noexcept { return metadata_; }
  const std::string& path() const { return source_->name(); }

  /// Records in the file: the block headers walked once (no record decoded). Throws
  /// Error(kData) at the block that is broken (a size past the end, a wrong sync marker,
  /// a count the block's bytes cannot hold).
  uint64_t record_count() const;
  /// Blocks in the file (walking them as record_count does).
  uint64_t block_count() const;

  /// One block's records, uncompressed, with where they are.
  struct Block {
    std::shared_ptr<const codec::Bytes> bytes;
    uint64_t first_record = 0;  ///< the file's index of its first record
    uint64_t records = 0;
    uint64_t file_offset =
        0;  ///< of its first record's byte (codec "null": offsets are the file's)
    bool in_file_order = false;  ///< codec "null": byte i is the file's byte file_offset + i
  };
  /// The block holding record `index` (< record_count()); the last block read is kept, so
  /// reading records in order reads each block once. Error(kLimit) at the block's offset for
  /// a block that decompresses to more than the reader's limit, or to more than its record
  /// count allows where the schema bounds a record's size.
  std::shared_ptr<const Block> block_of(uint64_t index) const;

 private:
  struct BlockHeader {
    uint64_t offset = 0;  ///< of the compressed records
    uint64_t size = 0;
    uint64_t first_record = 0;
    uint64_t records = 0;
  };
  void walk() const;

  std::shared_ptr<const io::ByteSource> source_;
  uint64_t max_block_bytes_;
  Schema schema_;
  std::string codec_;
  std::unique_ptr<codec::BytesCodec> decompressor_;
  model::ValueMap metadata_;
  std::byte sync_[16] = {};
  uint64_t data_start_ = 0;
  mutable std::mutex mutex_;
  mutable bool walked_ = false;
  mutable std::vector<BlockHeader> blocks_;
  mutable std::shared_ptr<const Block> last_;
};

/// Writes a container file: records appended as encoded datums, gathered into blocks of
/// about `block_bytes`, compressed by `codec`, the file built beside `path` and moved into
/// place by commit().
class ContainerWriter {
 public:
  /// Error(kUsage) for a codec not in container_codecs(); Error(kIo) as io::AtomicFile.
  ContainerWriter(const std::string& path, const Schema& schema, const std::string& codec = "null",
                  uint64_t block_bytes = uint64_t{1} << 20, const model::ValueMap& metadata = {});

  /// Appends one record's datum (encoded as the schema says).
  void append(std::span<const std::byte> datum);
  /// The buffer the next record may be encoded into directly (then call commit_record()),
  /// saving a copy of large records.
  codec::Bytes& record_buffer() { return block_; }
  /// Counts the record just encoded at the end of record_buffer().
  void commit_record();
  /// Writes the last block and moves the file into place. Returns its size.
  uint64_t commit(bool fsync = false);
  uint64_t records() const noexcept { return total_records_; }

 private:
  void flush_block();

  io::AtomicFile file_;
  std::unique_ptr<codec::BytesCodec> compressor_;
  std::byte sync_[16] = {};
  uint64_t block_bytes_;
  codec::Bytes block_;
  codec::Bytes compressed_;
  codec::Bytes header_;
  uint64_t block_records_ = 0;
  uint64_t total_records_ = 0;
  uint64_t written_ = 0;
};

}  // namespace dudley::avro
