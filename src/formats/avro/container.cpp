#include "container.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "binary.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::avro {
namespace {

// A header (magic, metadata, sync) larger than this is refused rather than read whole.
constexpr uint64_t kMaxHeaderBytes = uint64_t{16} << 20;

std::unique_ptr<codec::BytesCodec> codec_named(const std::string& name) {
  if (name == "null") return nullptr;
  // Apache Avro's Python writer ends each deflate block with 3 bytes of zlib's checksum.
  if (name == "deflate") return codec::make_bytes_codec("deflate", {{"trailing_bytes", 4}});
  if (name == "bzip2") return codec::make_bytes_codec("bz2", nlohmann::json::object());
  if (name == "zstandard") return codec::make_bytes_codec("zstd", nlohmann::json::object());
  // The spec's framing: each block's snappy bytes, then the CRC-32 of what they decode to.
  if (name == "snappy") return codec::make_bytes_codec("snappy", {{"crc32", true}});
  if (name == "xz") return codec::make_bytes_codec("xz", nlohmann::json::object());
  return nullptr;
}

bool known_codec(const std::string& name) {
  const auto& all = container_codecs();
  return std::find(all.begin(), all.end(), name) != all.end();
}

}  // namespace

const std::vector<std::string>& container_codecs() {
  static const std::vector<std::string> codecs = {"null",      "deflate", "bzip2",
                                                  "zstandard", "snappy",  "xz"};
  return codecs;
}

ContainerReader::ContainerReader(std::shared_ptr<const io::ByteSource> source,
                                 uint64_t max_block_bytes)
    : source_(std::move(source)), max_block_bytes_(max_block_bytes) {
  const std::string& path = source_->name();
  const uint64_t size = source_->size();
  codec::Bytes head(std::min(size, kMaxHeaderBytes));
  source_->read(0, head.size(), head.data(), "the header");
  BinaryReader in(head, path);
  try {
    const auto magic = in.read_fixed(4);
    if (std::memcmp(magic.data(), kMagic, 4) != 0) {
      throw Error(ErrorCategory::kData, "not an Avro container file (no \"Obj\\x01\" magic)",
                  Location::binary(path, 0));
    }
    std::string schema_text;
    bool have_schema = false;
    codec_ = "null";
    for (uint64_t n = in.read_block_count(2); n != 0; n = in.read_block_count(2)) {
      for (uint64_t i = 0; i < n; ++i) {
        std::string key(in.read_string());
        const auto value = in.read_bytes();
        const std::string text(reinterpret_cast<const char*>(value.data()), value.size());
        if (key == "avro.schema") {
          schema_text = text;
          have_schema = true;
        } else if (key == "avro.codec") {
          codec_ = text;
        } else {
          const auto* b = reinterpret_cast<const uint8_t*>(value.data());
          metadata_.emplace_back(std::move(key),
                                 model::Value(model::ValueBytes(b, b + value.size())));
        }
      }
    }
    const auto sync = in.read_fixed(16);
    std::memcpy(sync_, sync.data(), 16);
    data_start_ = in.position();
    if (!have_schema) {
      throw Error(ErrorCategory::kData, "the header has no avro.schema", Location::binary(path, 4));
    }
    if (!known_codec(codec_)) {
      throw Error(ErrorCategory::kType,
                  fmt::format("codec \"{}\" is not read by this build (null, deflate, bzip2, "
                              "zstandard, snappy, xz are)",
                              codec_),
                  Location::file(path));
    }
    decompressor_ = codec_named(codec_);
    schema_ = parse_schema(schema_text, path + " (avro.schema)");
  } catch (const Error& e) {
    if (head.size() < size && e.message().find("past the end") != std::string::npos) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("a header of more than {} bytes", kMaxHeaderBytes),
                  Location::file(path));
    }
    throw;
  }
}

void ContainerReader::walk() const {
  if (walked_) return;
  const std::string& path = source_->name();
  const uint64_t size = source_->size();
  const uint64_t min_record = schema_.top().min_bytes;
  uint64_t at = data_start_, records = 0;
  std::byte head[20 + 16];
  while (at < size) {
    const uint64_t got = source_->read_some(at, 20, head);
    BinaryReader in({head, got}, path, at);
    const int64_t count = in.read_long();
    if (count < 0) in.fail(fmt::format("a block of {} records", count));
    const int64_t bytes = in.read_long();
    const uint64_t data = at + in.position();
    if (bytes < 0 || static_cast<uint64_t>(bytes) > size - data ||
        size - data - static_cast<uint64_t>(bytes) < 16) {
      throw Error(ErrorCategory::kData,
                  fmt::format("a block of {} bytes and its sync marker run past the end of the "
                              "file ({} bytes)",
                              bytes, size),
                  Location::binary(path, at));
    }
    const uint64_t end = data + static_cast<uint64_t>(bytes);
    std::byte sync[16];
    source_->read(end, 16, sync, "a sync marker");
    if (std::memcmp(sync, sync_, 16) != 0) {
      throw Error(ErrorCategory::kData, "the sync marker after a block is not the header's",
                  Location::binary(path, end));
    }
    // Uncompressed, a block's bytes bound its records (records of no bytes are capped).
    const uint64_t n = static_cast<uint64_t>(count);
    if (min_record > 0 ? (codec_ == "null" && n > static_cast<uint64_t>(bytes) / min_record)
                       : n > (uint64_t{1} << 32)) {
      throw Error(ErrorCategory::kData, fmt::format("a block of {} records in {} bytes", n, bytes),
                  Location::binary(path, at));
    }
    if (n > 0) blocks_.push_back({data, static_cast<uint64_t>(bytes), records, n});
    const auto total = checked_add(records, n);
    if (!total)
      throw Error(ErrorCategory::kData, "record counts overflow", Location::binary(path, at));
    records = *total;
    at = end + 16;
  }
  walked_ = true;
}

uint64_t ContainerReader::record_count() const {
  std::lock_guard lock(mutex_);
  walk();
  return blocks_.empty() ? 0 : blocks_.back().first_record + blocks_.back().records;
}

uint64_t ContainerReader::block_count() const {
  std::lock_guard lock(mutex_);
  walk();
  return blocks_.size();
}

std::shared_ptr<const ContainerReader::Block> ContainerReader::block_of(uint64_t index) const {
  std::lock_guard lock(mutex_);
  walk();
  if (last_ && index >= last_->first_record && index - last_->first_record < last_->records) {
    return last_;
  }
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), index,
                             [](uint64_t i, const BlockHeader& b) { return i < b.first_record; });
  if (it == blocks_.begin() || index - std::prev(it)->first_record >= std::prev(it)->records) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("record {} of {}", index,
                    blocks_.empty() ? 0 : blocks_.back().first_record + blocks_.back().records),
        Location::file(source_->name()));
  }
  const BlockHeader& h = *std::prev(it);
  auto block = std::make_shared<Block>();
  block->first_record = h.first_record;
  block->records = h.records;
  block->file_offset = h.offset;
  codec::Bytes raw(h.size);
  source_->read(h.offset, h.size, raw.data(), "a block");
  if (!decompressor_) {
    block->bytes = std::make_shared<const codec::Bytes>(std::move(raw));
    block->in_file_order = true;
  } else {
    // Memory follows one block, bounded: by the reader's limit, and, for records of a
    // bounded size, by what the block's records can take.
    uint64_t limit = max_block_bytes_;
    bool by_schema = false;
    if (const auto& most = schema_.top().max_bytes) {
      const uint64_t records_take = checked_mul(h.records, *most).value_or(UINT64_MAX);
      if (records_take < limit) {
        limit = records_take;
        by_schema = true;
      }
    }
    try {
      block->bytes = std::make_shared<const codec::Bytes>(decompressor_->decode(raw, limit));
    } catch (const Error& e) {
      if (e.message().find("more than the limit") == std::string::npos) {
        throw Error(e.category(), fmt::format("a {} block: {}", codec_, e.message()),
                    Location::binary(source_->name(), h.offset));
      }
      throw Error(ErrorCategory::kLimit,
                  by_schema ? fmt::format("a {} block of {} records decodes to more than the {} "
                                          "bytes such records can take",
                                          codec_, h.records, limit)
                            : fmt::format("a {} block decodes to more than {} bytes "
                                          "(--max-block-size BYTES reads larger blocks)",
                                          codec_, limit),
                  Location::binary(source_->name(), h.offset));
    }
  }
  last_ = block;
  return block;
}

ContainerWriter::ContainerWriter(const std::string& path, const Schema& schema,
                                 const std::string& codec, uint64_t block_bytes,
                                 const model::ValueMap& metadata)
    : file_(path), block_bytes_(std::max<uint64_t>(block_bytes, 1)) {
  if (!known_codec(codec)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("unknown Avro codec '{}' (null, deflate, bzip2, zstandard, snappy, xz)",
                            codec));
  }
  compressor_ = codec_named(codec);
  std::random_device random;
  for (auto& b : sync_) b = static_cast<std::byte>(random() & 0xff);
  BinaryWriter out(header_);
  out.write_raw({reinterpret_cast<const std::byte*>(kMagic), 4});
  out.write_long(static_cast<int64_t>(2 + metadata.size()));
  out.write_string("avro.schema");
  out.write_string(schema.json);
  out.write_string("avro.codec");
  out.write_string(codec);
  for (const auto& [key, value] : metadata) {
    out.write_string(key);
    if (value.is<model::ValueBytes>()) {
      const auto& b = value.as<model::ValueBytes>();
      out.write_bytes({reinterpret_cast<const std::byte*>(b.data()), b.size()});
    } else {
      out.write_string(value.is<std::string>() ? value.as<std::string>() : std::string());
    }
  }
  out.write_long(0);
  out.write_raw(sync_);
  file_.write_at(0, header_.data(), header_.size());
  written_ = header_.size();
}

void ContainerWriter::append(std::span<const std::byte> datum) {
  BinaryWriter(block_).write_raw(datum);
  commit_record();
}

void ContainerWriter::commit_record() {
  ++block_records_;
  ++total_records_;
  if (block_.size() >= block_bytes_) flush_block();
}

void ContainerWriter::flush_block() {
  if (block_records_ == 0) return;
  std::span<const std::byte> data = block_;
  if (compressor_) {
    compressor_->encode_into(block_, compressed_);
    data = compressed_;
  }
  header_.clear();
  BinaryWriter out(header_);
  out.write_long(static_cast<int64_t>(block_records_));
  out.write_long(static_cast<int64_t>(data.size()));
  file_.write_at(written_, header_.data(), header_.size());
  written_ += header_.size();
  file_.write_at(written_, data.data(), data.size());
  written_ += data.size();
  file_.write_at(written_, sync_, 16);
  written_ += 16;
  block_.clear();
  block_records_ = 0;
}

uint64_t ContainerWriter::commit(bool fsync) {
  flush_block();
  file_.commit(fsync);
  return written_;
}

}  // namespace dudley::avro
