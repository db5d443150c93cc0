#include "ndarray_record.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::avro {

std::string_view ndarray_schema_json() {
  return R"({"type": "record", "name": "ndarray", "logicalType": "ndarray", "fields": [)"
         R"({"name": "shape", "type": {"type": "array", "items": "int"}}, )"
         R"({"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"}, )"
         R"({"name": "version", "type": "int"}]})";
}

DType dtype_of_typestr(std::string_view typestr) {
  // The records of a file nearly always share one typestr: the last one's type is kept, so
  // that reading 100,000 small records parses and spells it once, not per record.
  struct Last {
    std::string typestr;
    DType type;
  };
  thread_local Last last;
  if (!last.typestr.empty() && typestr == last.typestr) return last.type;
  auto refuse = [&] {
    throw Error(ErrorCategory::kType,
                fmt::format("typestr \"{}\" is not one of the ndarray record's (b1, i1-i8, "
                            "u1-u8, f2, f4, f8, c8, c16 after <, >, | or =)",
                            typestr));
  };
  // numpy's typestr, as DType reads it, narrowed to the record's: an explicit order (never
  // '|' on a multi-byte type), a number or a boolean of a size typestr_of writes.
  if (typestr.size() < 3 || std::string_view("<>=|").find(typestr[0]) == std::string_view::npos)
    refuse();
  DType type;
  try {
    type = DType::from_typestr(typestr);
    // Spelled as typestr_of spells it after the order ("i08" and "?" are not).
    if (typestr.substr(1) != std::string_view(typestr_of(type)).substr(1)) refuse();
  } catch (const Error&) {
    refuse();
  }
  if (typestr[0] == '|' && type.size() != 1) refuse();
  last = {std::string(typestr),
          type.size() == 1 ? type.with_byte_order(ByteOrder::kNotApplicable) : type};
  return last.type;
}

std::string typestr_of(const DType& dtype) {
  const uint64_t size = dtype.size();
  auto named = [&](char kind) { return fmt::format("{}{}{}", size == 1 ? '|' : '<', kind, size); };
  switch (dtype.kind()) {
    case DTypeKind::kBool:
      return "|b1";
    case DTypeKind::kInt:
      return named('i');
    case DTypeKind::kUInt:
      return named('u');
    case DTypeKind::kFloat:
      if (size == 2 || size == 4 || size == 8) return named('f');
      break;
    case DTypeKind::kComplex:
      if (size == 8 || size == 16) return named('c');
      break;
    default:
      break;
  }
  throw Error(ErrorCategory::kType,
              fmt::format("the ndarray record has no typestr for {} (numbers and booleans only)",
                          dtype.to_string()));
}

DecodedNdarray decode_ndarray(BinaryReader& in, const std::shared_ptr<const void>& keep_alive) {
  const uint64_t record_at = in.offset();
  std::vector<int64_t> shape;
  for (uint64_t count = in.read_block_count(1); count != 0; count = in.read_block_count(1)) {
    if (count > kMaxRank || shape.size() + count > kMaxRank) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("an ndarray record of more than {} dimensions", kMaxRank),
                  Location::binary(in.where(), record_at));
    }
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t entry_at = in.offset();
      const int32_t extent = in.read_int();
      if (extent < 0) {
        throw Error(ErrorCategory::kData, fmt::format("a negative shape entry {}", extent),
                    Location::binary(in.where(), entry_at));
      }
      shape.push_back(extent);
    }
  }
  const uint64_t typestr_at = in.offset();
  const std::string_view typestr = in.read_string();
  DType dtype;
  try {
    dtype = dtype_of_typestr(typestr);
  } catch (const Error& e) {
    throw Error(e.category(), e.message(), Location::binary(in.where(), typestr_at));
  }
  const uint64_t data_at = in.offset();
  const auto data = in.read_bytes();
  in.read_int();  // version: 3 today; others are read the same way (resolution 5)
  const auto count = Shape(shape).element_count();
  const auto bytes = count ? checked_mul(*count, dtype.size()) : std::nullopt;
  if (!bytes) {
    throw Error(ErrorCategory::kData,
                fmt::format("shape {} of {} overflows 64 bits", Shape(shape).to_string(), typestr),
                Location::binary(in.where(), record_at));
  }
  if (*bytes != data.size()) {
    throw Error(ErrorCategory::kData,
                fmt::format("data of {} bytes for shape {} of {} ({} bytes)", data.size(),
                            Shape(shape).to_string(), typestr, *bytes),
                Location::binary(in.where(), data_at));
  }
  const bool native = !dtype.needs_swap();
  bool plain_bools = true;
  if (dtype.kind() == DTypeKind::kBool) {
    for (std::byte b : data) plain_bools = plain_bools && static_cast<uint8_t>(b) <= 1;
  }
  // A view may start anywhere in the buffer (a record's header is of varying length): the
  // library reads arrays with memcpy, never through a typed pointer, so that is safe.
  if (keep_alive && native && plain_bools) {
    return {NDArray::borrow(const_cast<std::byte*>(data.data()), dtype, Shape(shape), {},
                            std::const_pointer_cast<void>(keep_alive)),
            dtype, data_at + long_size(static_cast<int64_t>(data.size()))};
  }
  const DType out_type = native ? dtype : dtype.with_byte_order(native_byte_order());
  NDArray out(out_type, Shape(shape));
  if (!data.empty()) std::memcpy(out.mutable_data(), data.data(), data.size());
  if (!native) swap_elements(out.mutable_data(), *count, dtype);
  if (!plain_bools) {
    auto* b = static_cast<uint8_t*>(out.mutable_data());
    for (uint64_t i = 0; i < *count; ++i) b[i] = b[i] != 0;
  }
  return {std::move(out), dtype, data_at + long_size(static_cast<int64_t>(data.size()))};
}

void encode_ndarray(const NDArray& array, BinaryWriter& out) {
  const std::string typestr = typestr_of(array.dtype());
  const auto& shape = array.shape().dims();
  for (int64_t extent : shape) {
    if (extent > INT32_MAX) {
      throw Error(ErrorCategory::kLimit,
                  fmt::format("shape {}: the ndarray record's shape entries are 32-bit ints",
                              array.shape().to_string()));
    }
  }
  const uint64_t bytes = array.byte_size();
  // Shape (at most 5 bytes an entry), typestr, data and the varints around them: one
  // allocation, never a copy of the data.
  out.reserve(bytes + 5 * shape.size() + typestr.size() + 48);
  if (!shape.empty()) {
    out.write_long(static_cast<int64_t>(shape.size()));
    for (int64_t extent : shape) out.write_long(extent);
  }
  out.write_long(0);
  out.write_string(typestr);
  out.write_long(static_cast<int64_t>(bytes));
  std::byte* data = out.extend(bytes);
  if (bytes > 0) {
    array.copy_native_into(data);
    if (native_byte_order() == ByteOrder::kBig) {
      swap_elements(data, array.element_count(), array.dtype().with_byte_order(ByteOrder::kBig));
    }
  }
  out.write_long(3);
}

}  // namespace dudley::avro
