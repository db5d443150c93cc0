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
                          "r<N>, and the extensions string, bytes, variable_length_bytes, "
                          "numpy.datetime64, numpy.timedelta64, fixed_length_utf32, "
                          "null_terminated_bytes and raw_bytes)",
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

// The extension types zarr-python 3 writes with a configuration (zarr-extensions'
// data-types): numpy.datetime64 / numpy.timedelta64 {unit, scale_factor},
// fixed_length_utf32 / null_terminated_bytes / raw_bytes {length_bytes}.
DType configured_type(const std::string& name, const nlohmann::ordered_json& config,
                      ByteOrder order, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCategory::kType, fmt::format("data_type {}: {}", name, why),
                 Location::file(where));
  };
  auto only = [&](std::initializer_list<const char*> keys) {
    for (const auto& [key, value] : config.items()) {
      bool known = false;
      for (const char* k : keys) known = known || key == k;
      if (!known) throw bad(fmt::format("\"{}\" is not understood here", key));
    }
  };
  if (name == "numpy.datetime64" || name == "numpy.timedelta64") {
    only({"unit", "scale_factor"});
    if (!config.contains("unit") || !config["unit"].is_string())
      throw bad("its configuration needs a unit");
    const nlohmann::ordered_json scale =
        config.contains("scale_factor") ? config["scale_factor"] : nlohmann::ordered_json(1);
    if (!scale.is_number_unsigned() || scale.get<uint64_t>() == 0 ||
        scale.get<uint64_t>() >= (uint64_t{1} << 31)) {
      throw bad(fmt::format("scale_factor must be a whole number from 1 to 2^31 - 1, not {}",
                            scale.dump()));
    }
    std::string unit = config["unit"].get<std::string>();
    if (unit.empty()) throw bad("unit \"\" is no unit (numpy's unitless one is \"generic\")");
    if (unit == "generic") unit.clear();
    try {
      return DType::time(name == "numpy.timedelta64", unit, scale.get<uint64_t>(), order);
    } catch (const Error& e) {
      throw bad(e.message());
    }
  }
  only({"length_bytes"});
  const nlohmann::ordered_json length =
      config.contains("length_bytes") ? config["length_bytes"] : nlohmann::ordered_json();
  const uint64_t unit = name == "fixed_length_utf32" ? 4 : 1;
  if (!length.is_number_unsigned() || length.get<uint64_t>() == 0 ||
      length.get<uint64_t>() > kMaxRawBits / 8 || length.get<uint64_t>() % unit != 0) {
    throw bad(fmt::format("length_bytes must be a positive multiple of {} up to 2^28, not {}", unit,
                          length.dump()));
  }
  const uint64_t bytes = length.get<uint64_t>();
  if (name == "fixed_length_utf32") return DType::string(TextEncoding::kUtf32, bytes / 4, order);
  if (name == "null_terminated_bytes") return DType::string(TextEncoding::kAscii, bytes);
  return DType::opaque(bytes);  // raw_bytes
}

bool is_configured_type(const std::string& name) {
  return name == "numpy.datetime64" || name == "numpy.timedelta64" ||
         name == "fixed_length_utf32" || name == "null_terminated_bytes" || name == "raw_bytes";
}

}  // namespace

DType data_type_from_json(const nlohmann::ordered_json& data_type, ByteOrder order,
                          const std::string& where) {
  std::string name;
  if (data_type.is_string()) {
    name = data_type.get<std::string>();
  } else if (data_type.is_object() && data_type.contains("name") && data_type["name"].is_string()) {
    name = data_type["name"].get<std::string>();
    const nlohmann::ordered_json* configuration = nullptr;
    for (const auto& [key, value] : data_type.items()) {
      if (key == "name") continue;
      if (key == "configuration" && value.is_object() && is_configured_type(name)) {
        configuration = &value;  // read once every other key is known
        continue;
      }
      // Core data types have no configuration, and must_understand: false is not allowed
      // for a data type: a reader that ignored either would misread every element.
      if (key == "configuration" && value.is_object() && value.empty()) continue;
      throw Error(ErrorCategory::kType,
                  fmt::format("data_type {}: \"{}\" is not understood here", data_type.dump(), key),
                  Location::file(where));
    }
    if (configuration) return configured_type(name, *configuration, order, where);
  } else {
    throw Error(
        ErrorCategory::kType,
        fmt::format("data_type must be a name or {{\"name\": ...}}, not {}", data_type.dump()),
        Location::file(where));
  }
  if (name == "bool") return DType::boolean();
  if (std::optional<DType> numeric = numeric_type_named(name, order)) return *numeric;
  if (name == "string") return DType::vlen(DType::text(TextEncoding::kUtf8));
  if (name == "bytes" || name == "variable_length_bytes")  // the latter: zarr-python 3's name
    return DType::vlen_bytes();
  if (is_configured_type(name)) {
    throw Error(ErrorCategory::kType, fmt::format("data_type \"{}\" needs its configuration", name),
                Location::file(where));
  }
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
    case DTypeKind::kOpaque:  // numpy's V<n>, as zarr-python 3 names it (it has no r<N>)
      return "raw_bytes";
    case DTypeKind::kTime:
      return type.is_duration() ? "numpy.timedelta64" : "numpy.datetime64";
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

nlohmann::ordered_json data_type_json(const DType& type) {
  if (type.kind() == DTypeKind::kOpaque) {
    return {{"name", "raw_bytes"}, {"configuration", {{"length_bytes", type.size()}}}};
  }
  if (type.kind() == DTypeKind::kTime) {
    return {{"name", data_type_name(type)},
            {"configuration",
             {{"unit", type.time_unit().empty() ? std::string("generic") : type.time_unit()},
              {"scale_factor", type.time_scale()}}}};
  }
  return data_type_name(type);
}

bool fixed_size(const DType& type) {
  return type.kind() != DTypeKind::kVLen;
}

}  // namespace dudley::zarr
