#include "datatype.hpp"

#include <fmt/format.h>

#include <charconv>

#include "dudley/core/error.hpp"
#include "dudley/core/numeric_names.hpp"

namespace dudley::zarr {
namespace {

// Raw bits beyond this are refused: no element of a real array is 256 MiB.
constexpr uint64_t kMaxRawBits = uint64_t{1} << 31;

[[noreturn]] void unknown(const std::string& name, const std::string& where) {
  throw Error(ErrorCategory::kType,
              fmt::format("unknown data_type \"{}\" (Zarr v3 has bool, int8..int64, "
                          "uint8..uint64, float16, float32, float64, complex64, complex128, "
                          "r<N>, and the extensions string and bytes)",
                          name),
              Location::file(where));
}

DType raw_bits(const std::string& name, const std::string& where) {
  uint64_t bits = 0;
  const char* first = name.data() + 1;
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, bits);
  // Digits only: no sign, no leading zero (r08 is not a name the spec makes).
  if (first == last || error != std::errc() || end != last || *first == '0') {
    unknown(name, where);
  }
  if (bits % 8 != 0 || bits > kMaxRawBits) {
    throw Error(ErrorCategory::kType,
                fmt::format("data_type \"{}\": raw bits must be a positive multiple of 8, at "
                            "most {}",
                            name, kMaxRawBits),
                Location::file(where));
  }
  return DType::raw_bits(bits);
}

}  // namespace

DType data_type_from_json(const nlohmann::ordered_json& data_type, ByteOrder order,
                          const std::string& where) {
  std::string name;
  if (data_type.is_string()) {
    name = data_type.get<std::string>();
  } else if (data_type.is_object() && data_type.contains("name") && data_type["name"].is_string()) {
    for (const auto& [key, value] : data_type.items()) {
      if (key == "name") continue;
      // Core data types have no configuration, and must_understand: false is not allowed
      // for a data type: a reader that ignored either would misread every element.
      if (key == "configuration" && value.is_object() && value.empty()) continue;
      throw Error(ErrorCategory::kType,
                  fmt::format("data_type {}: \"{}\" is not understood here", data_type.dump(), key),
                  Location::file(where));
    }
    name = data_type["name"].get<std::string>();
  } else {
    throw Error(
        ErrorCategory::kType,
        fmt::format("data_type must be a name or {{\"name\": ...}}, not {}", data_type.dump()),
        Location::file(where));
  }
  if (name == "bool") return DType::boolean();
  if (std::optional<DType> numeric = numeric_type_named(name, order)) return *numeric;
  if (name == "string") return DType::vlen(DType::text(TextEncoding::kUtf8));
  if (name == "bytes") return DType::vlen(DType::uint(1, ByteOrder::kNotApplicable));
  if (name.size() > 1 && name[0] == 'r') return raw_bits(name, where);
  unknown(name, where);
}

std::string data_type_name(const DType& type) {
  switch (type.kind()) {
    case DTypeKind::kBool:
      return "bool";
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kFloat:
    case DTypeKind::kComplex:
      // Dudley's pair of float16 (4 bytes) has no Zarr name.
      if (std::optional<std::string_view> n = numeric_type_name(type)) return std::string(*n);
      break;
    case DTypeKind::kRawBits:
      return fmt::format("r{}", type.bits());
    case DTypeKind::kVLen:
      if (type.base().joins_units() && type.base().encoding() == TextEncoding::kUtf8)
        return "string";
      // ASCII strings (h5py's bytes objects) are bytes to Zarr: not every such byte is UTF-8.
      if ((type.base().kind() == DTypeKind::kUInt && type.base().size() == 1) ||
          (type.base().joins_units() && type.base().encoding() == TextEncoding::kAscii))
        return "bytes";
      break;
    default:
      break;
  }
  throw Error(ErrorCategory::kType,
              fmt::format("Zarr v3 has no data type for {}", type.to_string()));
}

bool fixed_size(const DType& type) {
  return type.kind() != DTypeKind::kVLen;
}

}  // namespace dudley::zarr
