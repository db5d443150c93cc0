#include <array>
#include <cctype>

#include <fmt/format.h>

#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

namespace {
constexpr std::array<std::string_view, kPrimitiveCount> kNames = {
    "i1", "i2", "i4",  "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8",
    "c4", "c8", "c16", "S1", "U1", "U2", "U4", "p4", "p8", "b1"};
constexpr std::array<unsigned, kPrimitiveCount> kSizes = {1, 2, 4,  8, 1, 2, 4, 8, 2, 4, 8,
                                                          4, 8, 16, 1, 1, 2, 4, 4, 8, 1};
}  // namespace

std::string_view primitive_name(Primitive p) {
  return kNames[static_cast<size_t>(p)];
}

std::optional<Primitive> primitive_from_name(std::string_view name) {
  // Called for every type use: decide by length and first letter before comparing.
  if (name.size() < 2 || name.size() > 3) return std::nullopt;
  if (name.size() == 3) {
    if (name == "c16") return Primitive::c16;
    return std::nullopt;
  }
  const char width = name[1];
  switch (name[0]) {
    case 'i':
      return width == '1'   ? Primitive::i1
             : width == '2' ? Primitive::i2
             : width == '4' ? Primitive::i4
             : width == '8' ? std::optional(Primitive::i8)
                            : std::nullopt;
    case 'u':
      return width == '1'   ? Primitive::u1
             : width == '2' ? Primitive::u2
             : width == '4' ? Primitive::u4
             : width == '8' ? std::optional(Primitive::u8)
                            : std::nullopt;
    case 'f':
      return width == '2'   ? Primitive::f2
             : width == '4' ? Primitive::f4
             : width == '8' ? std::optional(Primitive::f8)
                            : std::nullopt;
    case 'c':
      return width == '4'   ? Primitive::c4
             : width == '8' ? std::optional(Primitive::c8)
                            : std::nullopt;
    case 'S':
      return width == '1' ? std::optional(Primitive::S1) : std::nullopt;
    case 'U':
      return width == '1'   ? Primitive::U1
             : width == '2' ? Primitive::U2
             : width == '4' ? std::optional(Primitive::U4)
                            : std::nullopt;
    case 'p':
      return width == '4'   ? Primitive::p4
             : width == '8' ? std::optional(Primitive::p8)
                            : std::nullopt;
    case 'b':
      return width == '1' ? std::optional(Primitive::b1) : std::nullopt;
    default:
      return std::nullopt;
  }
}

unsigned primitive_size(Primitive p) {
  return kSizes[static_cast<size_t>(p)];
}

bool primitive_is_text(Primitive p) {
  return p == Primitive::S1 || p == Primitive::U1 || p == Primitive::U2 || p == Primitive::U4;
}

bool primitive_is_integer(Primitive p) {
  return p <= Primitive::u8;
}

DType primitive_dtype(Primitive p, ByteOrder order) {
  const unsigned size = primitive_size(p);
  switch (p) {
    case Primitive::i1:
    case Primitive::i2:
    case Primitive::i4:
    case Primitive::i8:
      return DType::int_(size, order);
    case Primitive::u1:
    case Primitive::u2:
    case Primitive::u4:
    case Primitive::u8:
      return DType::uint(size, order);
    case Primitive::f2:
    case Primitive::f4:
    case Primitive::f8:
      return DType::float_(size, order);
    case Primitive::c4:
    case Primitive::c8:
    case Primitive::c16:
      return DType::complex(size, order);
    case Primitive::S1:
      return DType::text(TextEncoding::kAscii, 1, order);
    case Primitive::U1:
      return DType::text(TextEncoding::kUtf8, 1, order);
    case Primitive::U2:
      return DType::text(TextEncoding::kUtf16, 1, order);
    case Primitive::U4:
      return DType::text(TextEncoding::kUtf32, 1, order);
    case Primitive::p4:
    case Primitive::p8:
      return DType::pointer(size, order);
    case Primitive::b1:
      return DType::boolean();
  }
  return DType();
}

bool is_dudley_name(std::string_view name) {
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  for (char c : name) {
    if (!letter(c) && !std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool is_type_name(std::string_view name) {
  return is_dudley_name(name) && !primitive_from_name(name);
}

std::optional<Primitive> primitive_for(const DType& type) {
  const unsigned n = static_cast<unsigned>(type.size());
  std::string name;
  switch (type.kind()) {
    case DTypeKind::kBool:
      name = "b1";
      break;
    case DTypeKind::kInt:
      name = fmt::format("i{}", n);
      break;
    case DTypeKind::kUInt:
      name = fmt::format("u{}", n);
      break;
    case DTypeKind::kFloat:
      name = fmt::format("f{}", n);
      break;
    case DTypeKind::kComplex:
      name = fmt::format("c{}", n);
      break;
    case DTypeKind::kPointer:
      name = fmt::format("p{}", n);
      break;
    case DTypeKind::kText:
      switch (type.encoding()) {
        case TextEncoding::kAscii:
          name = "S1";
          break;
        case TextEncoding::kUtf8:
          name = "U1";
          break;
        case TextEncoding::kUtf16:
          name = "U2";
          break;
        case TextEncoding::kUtf32:
          name = "U4";
          break;
      }
      break;
    default:
      break;
  }
  return primitive_from_name(name);
}

}  // namespace dudley::layout
