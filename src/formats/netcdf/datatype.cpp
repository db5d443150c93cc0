#include "datatype.hpp"

namespace dudley::netcdf {

uint64_t type_size(NcType type) {
  switch (type) {
    case NcType::kByte:
    case NcType::kChar:
    case NcType::kUByte:
      return 1;
    case NcType::kShort:
    case NcType::kUShort:
      return 2;
    case NcType::kInt:
    case NcType::kFloat:
    case NcType::kUInt:
      return 4;
    default:
      return 8;
  }
}

DType model_type(NcType type) {
  switch (type) {
    case NcType::kByte:
      return DType::int_(1, ByteOrder::kNotApplicable);
    case NcType::kChar:
      return DType::text(TextEncoding::kAscii);
    case NcType::kShort:
      return DType::int_(2, ByteOrder::kBig);
    case NcType::kInt:
      return DType::int_(4, ByteOrder::kBig);
    case NcType::kFloat:
      return DType::float_(4, ByteOrder::kBig);
    case NcType::kDouble:
      return DType::float_(8, ByteOrder::kBig);
    case NcType::kUByte:
      return DType::uint(1, ByteOrder::kNotApplicable);
    case NcType::kUShort:
      return DType::uint(2, ByteOrder::kBig);
    case NcType::kUInt:
      return DType::uint(4, ByteOrder::kBig);
    case NcType::kInt64:
      return DType::int_(8, ByteOrder::kBig);
    default:
      return DType::uint(8, ByteOrder::kBig);
  }
}

}  // namespace dudley::netcdf
