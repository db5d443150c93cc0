#include "dudley/core/numeric_names.hpp"

#include <array>

namespace dudley {
namespace {

struct Numeric {
  std::string_view name;
  DTypeKind kind;
  unsigned bytes;
};

constexpr std::array<Numeric, 13> kNumerics = {{
    {"int8", DTypeKind::kInt, 1},
    {"uint8", DTypeKind::kUInt, 1},
    {"int16", DTypeKind::kInt, 2},
    {"uint16", DTypeKind::kUInt, 2},
    {"int32", DTypeKind::kInt, 4},
    {"uint32", DTypeKind::kUInt, 4},
    {"int64", DTypeKind::kInt, 8},
    {"uint64", DTypeKind::kUInt, 8},
    {"float16", DTypeKind::kFloat, 2},
    {"float32", DTypeKind::kFloat, 4},
    {"float64", DTypeKind::kFloat, 8},
    {"complex64", DTypeKind::kComplex, 8},
    {"complex128", DTypeKind::kComplex, 16},
}};

constexpr std::array<std::string_view, kNumerics.size()> names_of() {
  std::array<std::string_view, kNumerics.size()> out{};
  for (size_t i = 0; i < kNumerics.size(); ++i) out[i] = kNumerics[i].name;
  return out;
}
constexpr std::array<std::string_view, kNumerics.size()> kNames = names_of();

}  // namespace

std::span<const std::string_view> numeric_type_names() {
  return kNames;
}

std::optional<DType> numeric_type_named(std::string_view name, ByteOrder order) {
  for (const Numeric& n : kNumerics) {
    if (name != n.name) continue;
    switch (n.kind) {
      case DTypeKind::kInt:
        return DType::int_(n.bytes, order);
      case DTypeKind::kUInt:
        return DType::uint(n.bytes, order);
      case DTypeKind::kFloat:
        return DType::float_(n.bytes, order);
      default:
        return DType::complex(n.bytes, order);
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> numeric_type_name(const DType& type) {
  for (const Numeric& n : kNumerics) {
    if (type.kind() == n.kind && type.size() == n.bytes) return n.name;
  }
  return std::nullopt;
}

}  // namespace dudley
