#include "table.hpp"

#include <fmt/format.h>

#include <cstring>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::avro {
namespace {

// The row type's field for a schema field of `kind`, or nullopt when it has none.
std::optional<DType> field_type(const SchemaNode& node) {
  switch (node.kind) {
    case SchemaKind::kBoolean:
      return DType::boolean();
    case SchemaKind::kInt:
      return DType::int_(4);
    case SchemaKind::kLong:
      return DType::int_(8);
    case SchemaKind::kFloat:
      return DType::float_(4);
    case SchemaKind::kDouble:
      return DType::float_(8);
    case SchemaKind::kEnum: {
      std::vector<DTypeEnumMember> members;
      for (size_t i = 0; i < node.symbols.size(); ++i)
        members.push_back({node.symbols[i], static_cast<int64_t>(i)});
      return DType::enumeration(DType::int_(4), std::move(members));
    }
    default:
      return std::nullopt;
  }
}

// Decodes one record at `in` into the row at `out`.
void decode_row(BinaryReader& in, const Schema& schema, const DType& row, std::byte* out) {
  const SchemaNode& record = schema.top();
  for (size_t f = 0; f < record.fields.size(); ++f) {
    const SchemaNode& node = schema.at(record.fields[f].second);
    std::byte* at = out + row.fields()[f].offset;
    switch (node.kind) {
      case SchemaKind::kBoolean: {
        const bool v = in.read_boolean();
        std::memcpy(at, &v, 1);
        break;
      }
      case SchemaKind::kInt: {
        const int32_t v = in.read_int();
        std::memcpy(at, &v, 4);
        break;
      }
      case SchemaKind::kLong: {
        const int64_t v = in.read_long();
        std::memcpy(at, &v, 8);
        break;
      }
      case SchemaKind::kFloat: {
        const float v = in.read_float();
        std::memcpy(at, &v, 4);
        break;
      }
      case SchemaKind::kDouble: {
        const double v = in.read_double();
        std::memcpy(at, &v, 8);
        break;
      }
      case SchemaKind::kEnum: {
        const int64_t index = in.read_long();
        if (index < 0 || static_cast<uint64_t>(index) >= node.symbols.size()) {
          throw Error(ErrorCategory::kData,
                      fmt::format("enum index {} of field '{}' is not one of its {} symbols", index,
                                  record.fields[f].first, node.symbols.size()),
                      Location::binary(in.where(), in.offset()));
        }
        const auto v = static_cast<int32_t>(index);
        std::memcpy(at, &v, 4);
        break;
      }
      default:
        throw Error(ErrorCategory::kType, "not a flat record");  // table_row_type refused it
    }
  }
}

class TableSource final : public model::ArraySource {
 public:
  TableSource(std::shared_ptr<const ContainerReader> reader, DType row)
      : reader_(std::move(reader)), row_(std::move(row)) {}

  NDArray read() override { return read(Hyperslab::all({count()})); }

  NDArray read(const Hyperslab& slab) override {
    const std::vector<int64_t> shape{count()};
    slab.check_fits(shape);
    NDArray out(row_, Shape(slab.result_shape()));
    read_rows(slab, static_cast<std::byte*>(out.mutable_data()));
    return out;
  }

  void read_into(const Hyperslab& slab, void* out) override {
    slab.check_fits({count()});
    read_rows(slab, static_cast<std::byte*>(out));
  }

 private:
  int64_t count() const { return static_cast<int64_t>(reader_->record_count()); }

  // Rows start, start + step, ... (count of them) into `out`: consecutive records are
  // decoded in one pass through their blocks; others are found by skipping.
  void read_rows(const Hyperslab& slab, std::byte* out) {
    const int64_t n = slab.count.empty() ? 1 : slab.count[0];
    const int64_t step = slab.stride.empty() ? 1 : slab.stride[0];
    for (int64_t k = 0; k < n; ++k) {
      const auto index = static_cast<uint64_t>(slab.start[0] + k * step);
      BinaryReader& in = at(index);
      decode_row(in, reader_->schema(), row_, out + static_cast<uint64_t>(k) * row_.size());
      next_index_ = index + 1;
    }
  }

  // A reader positioned at record `index`: where the last record ended when it follows it,
  // else at its block's start after skipping the records before it.
  BinaryReader& at(uint64_t index) {
    const auto block = reader_->block_of(index);
    if (block != block_ || index < next_index_ || !in_) {
      block_ = block;
      const std::string where =
          block->in_file_order ? reader_->path()
                               : fmt::format("{} (the {} block at byte {}, decompressed)",
                                             reader_->path(), reader_->codec(), block->file_offset);
      in_.emplace(std::span<const std::byte>(*block->bytes), where,
                  block->in_file_order ? block->file_offset : 0);
      next_index_ = block->first_record;
    }
    for (; next_index_ < index; ++next_index_) {
      skip_row();
    }
    return *in_;
  }

  void skip_row() {
    scratch_.resize(row_.size());
    decode_row(*in_, reader_->schema(), row_, scratch_.data());
  }

  std::shared_ptr<const ContainerReader> reader_;
  DType row_;
  std::shared_ptr<const ContainerReader::Block> block_;
  std::optional<BinaryReader> in_;
  uint64_t next_index_ = 0;         // the record in_ is at
  std::vector<std::byte> scratch_;  // rows skipped
};

}  // namespace

std::optional<DType> table_row_type(const Schema& schema) {
  const SchemaNode& record = schema.top();
  if (record.kind != SchemaKind::kRecord || record.fields.empty() || record.ndarray)
    return std::nullopt;
  std::vector<DTypeField> fields;
  uint64_t offset = 0;
  for (const auto& [name, type] : record.fields) {
    const std::optional<DType> t = field_type(schema.at(type));
    if (!t) return std::nullopt;
    fields.push_back({name, std::make_shared<const DType>(*t), offset, {}});
    offset += t->size();
  }
  return DType::compound(std::move(fields), offset, record.name);
}

std::shared_ptr<model::ArraySource> table_source(std::shared_ptr<const ContainerReader> reader,
                                                 DType row) {
  return std::make_shared<TableSource>(std::move(reader), std::move(row));
}

void encode_row(const std::byte* row, const DType& row_type, const Schema& schema,
                BinaryWriter& out) {
  const SchemaNode& record = schema.top();
  for (size_t f = 0; f < record.fields.size(); ++f) {
    const std::byte* at = row + row_type.fields()[f].offset;
    switch (schema.at(record.fields[f].second).kind) {
      case SchemaKind::kBoolean:
        out.write_boolean(std::to_integer<uint8_t>(*at) != 0);
        break;
      case SchemaKind::kInt:
      case SchemaKind::kEnum: {
        int32_t v = 0;
        std::memcpy(&v, at, 4);
        out.write_int(v);
        break;
      }
      case SchemaKind::kLong: {
        int64_t v = 0;
        std::memcpy(&v, at, 8);
        out.write_long(v);
        break;
      }
      case SchemaKind::kFloat: {
        float v = 0;
        std::memcpy(&v, at, 4);
        out.write_float(v);
        break;
      }
      case SchemaKind::kDouble: {
        double v = 0;
        std::memcpy(&v, at, 8);
        out.write_double(v);
        break;
      }
      default:
        throw Error(ErrorCategory::kType, "not a flat record");
    }
  }
}

}  // namespace dudley::avro
