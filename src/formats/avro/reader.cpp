#include "reader.hpp"

#include <fmt/format.h>

#include "datum.hpp"
#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "table.hpp"

namespace dudley::avro {
namespace {

// The records, one at a time. Reading them in order continues from where the last one
// ended; any other record is found by its block, then by skipping the records before it
// in that block (not decoding them).
class RecordItems final : public model::ItemSource {
 public:
  explicit RecordItems(std::shared_ptr<const ContainerReader> reader)
      : reader_(std::move(reader)) {}

  uint64_t size() const override { return reader_->record_count(); }

  // A record that cannot be read (its block does not decode, or is damaged) comes back as
  // an array node with the error set, as ItemSource promises: a walker (ls, dump --json, a
  // writer) reports it with its path, after printing what came before, and stops the list.
  std::unique_ptr<model::Node> item(uint64_t index) override {
    try {
      return decoded(index);
    } catch (const Error& e) {
      auto node = std::make_unique<model::Node>();
      node->kind = model::NodeKind::kArray;
      node->error = model::NodeError::from(e);
      return node;
    }
  }

 private:
  std::unique_ptr<model::Node> decoded(uint64_t index) {
    const auto block = reader_->block_of(index);
    const auto& bytes = *block->bytes;
    if (block != block_) {  // named once per block, not per record
      where_ = block->in_file_order
                   ? reader_->path()
                   : fmt::format("{} (the {} block at byte {}, decompressed)", reader_->path(),
                                 reader_->codec(), block->file_offset);
    }
    const std::string& where = where_;
    const uint64_t base = block->in_file_order ? block->file_offset : 0;
    uint64_t from = 0, skip = index - block->first_record;
    if (block == block_ && index >= next_index_) {
      from = next_position_;
      skip = index - next_index_;
    }
    BinaryReader in(std::span<const std::byte>(bytes).subspan(from), where, base + from);
    const Schema& schema = reader_->schema();
    for (uint64_t i = 0; i < skip; ++i) skip_datum(in, schema, schema.root);
    DatumOptions options;
    options.keep_alive = block->bytes;
    options.offsets_in_file = block->in_file_order;
    auto node = decode_node(in, schema, schema.root, options);
    block_ = block;
    next_index_ = index + 1;
    next_position_ = from + in.position();
    if (next_index_ == block->first_record + block->records && next_position_ != bytes.size()) {
      throw Error(
          ErrorCategory::kData,
          fmt::format("{} bytes after the block's last record", bytes.size() - next_position_),
          Location::binary(where, base + next_position_));
    }
    return node;
  }

  std::shared_ptr<const ContainerReader> reader_;
  std::shared_ptr<const ContainerReader::Block> block_;  // where the next record starts
  std::string where_;                                    // block_'s name in errors
  uint64_t next_index_ = 0;
  uint64_t next_position_ = 0;
};

// Metadata bytes that are UTF-8 text read as strings (avsc and Apache Avro write text).
model::Value metadata_value(const model::Value& v) {
  const auto& b = v.as<model::ValueBytes>();
  size_t i = 0;
  while (i < b.size()) {
    const uint8_t c = b[i];
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || (n == 1 && c < 0x20 && c != '\n' && c != '\t' && c != '\r') || i + n > b.size()) {
      return v;
    }
    for (size_t k = 1; k < n; ++k) {
      if ((b[i + k] & 0xc0) != 0x80) return v;
    }
    i += n;
  }
  return model::Value(std::string(b.begin(), b.end()));
}

}  // namespace

model::Tree tree_of(std::shared_ptr<const ContainerReader> reader) {
  model::Tree tree;
  tree.format = "avro";
  tree.root = std::make_unique<model::Node>();
  tree.root->kind = model::NodeKind::kList;
  tree.root->attributes.set(kSchemaAttribute, model::Value(reader->schema().json));
  tree.root->attributes.set(kCodecAttribute, model::Value(reader->codec()));
  for (const auto& [key, value] : reader->metadata()) {
    tree.root->attributes.set(key, metadata_value(value));
  }
  // The block headers are walked now: a broken one is an error of the file as it opens,
  // not of a listing already half printed.
  const uint64_t records = reader->record_count();
  if (std::optional<DType> row = table_row_type(reader->schema())) {
    // Flat records: one table, a row per record (an HDF5 compound dataset, a structured
    // Zarr or .npy array), the container's attributes on the root group.
    tree.root->kind = model::NodeKind::kGroup;
    auto table = std::make_unique<model::Node>();
    table->kind = model::NodeKind::kArray;
    table->name = kTableName;
    table->dtype = *row;
    table->shape = {static_cast<int64_t>(records)};
    table->data = table_source(std::move(reader), *row);
    tree.root->children.push_back(std::move(table));
    return tree;
  }
  tree.root->lazy = std::make_shared<RecordItems>(std::move(reader));
  return tree;
}

model::Tree open_avro(std::shared_ptr<io::ByteSource> source, const AvroOpenOptions& options,
                      const OpenOptions&) {
  return tree_of(
      std::make_shared<const ContainerReader>(std::move(source), options.max_block_bytes));
}

model::Tree open_avro(const std::string& path, const AvroOpenOptions& options,
                      const OpenOptions& common) {
  return open_avro(io::open_source(path, common.store), options, common);
}

}  // namespace dudley::avro
