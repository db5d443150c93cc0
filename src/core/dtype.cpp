#include "dudley/core/dtype.hpp"

#include <bit>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley {

struct DType::Details {
  std::string tag;                    // opaque
  std::string name;                   // compound
  std::vector<DTypeField> fields;     // compound
  std::shared_ptr<const DType> base;  // enum, fixed array, vlen
  std::vector<DTypeEnumMember> enum_members;
  std::vector<int64_t> shape;  // fixed array
  bool duration = false;       // time: timedelta64, not datetime64
  uint64_t time_scale = 1;     // time: units per count
};

ByteOrder native_byte_order() {
  return std::endian::native == std::endian::little ? ByteOrder::kLittle : ByteOrder::kBig;
}

char byte_order_char(ByteOrder order) {
  switch (order) {
    case ByteOrder::kLittle:
      return '<';
    case ByteOrder::kBig:
      return '>';
    default:
      return '|';
  }
}

namespace {

void require_width(unsigned bytes, std::initializer_list<unsigned> allowed, const char* what) {
  for (unsigned a : allowed)
    if (a == bytes) return;
  throw Error(ErrorCategory::kType, fmt::format("{} of {} bytes does not exist", what, bytes));
}

// Orders only matter for multi-byte scalars.
ByteOrder effective_order(unsigned unit, ByteOrder order) {
  return unit == 1 ? ByteOrder::kNotApplicable : order;
}

const std::vector<DTypeField> kNoFields;
const std::vector<DTypeEnumMember> kNoMembers;
const std::vector<int64_t> kNoShape;
const std::string kNoTag;

}  // namespace

DType::DType() = default;

DType DType::boolean() {
  DType t;
  t.kind_ = DTypeKind::kBool;
  return t;
}

DType DType::int_(unsigned bytes, ByteOrder order) {
  require_width(bytes, {1, 2, 4, 8}, "a signed integer");
  DType t;
  t.kind_ = DTypeKind::kInt;
  t.size_ = t.unit_size_ = bytes;
  t.order_ = effective_order(bytes, order);
  return t;
}

DType DType::uint(unsigned bytes, ByteOrder order) {
  DType t = int_(bytes, order);
  t.kind_ = DTypeKind::kUInt;
  return t;
}

DType DType::float_(unsigned bytes, ByteOrder order) {
  require_width(bytes, {2, 4, 8}, "a float");
  DType t;
  t.kind_ = DTypeKind::kFloat;
  t.size_ = t.unit_size_ = bytes;
  t.order_ = order;
  return t;
}

DType DType::complex(unsigned bytes, ByteOrder order) {
  require_width(bytes, {4, 8, 16}, "a complex");
  DType t;
  t.kind_ = DTypeKind::kComplex;
  t.size_ = bytes;
  t.unit_size_ = bytes / 2;
  t.order_ = order;
  return t;
}

DType DType::text(TextEncoding encoding, uint64_t length, ByteOrder order) {
  DType t;
  t.kind_ = DTypeKind::kText;
  t.encoding_ = encoding;
  t.unit_size_ = encoding == TextEncoding::kUtf16 ? 2 : encoding == TextEncoding::kUtf32 ? 4 : 1;
  t.text_length_ = length;
  t.size_ = length * t.unit_size_;
  t.order_ = effective_order(t.unit_size_, order);
  return t;
}

DType DType::string(TextEncoding encoding, uint64_t length, ByteOrder order) {
  DType t = text(encoding, length, order);
  t.string_ = true;
  return t;
}

DType DType::pointer(unsigned bytes, ByteOrder order) {
  require_width(bytes, {4, 8}, "a pointer");
  DType t;
  t.kind_ = DTypeKind::kPointer;
  t.size_ = t.unit_size_ = bytes;
  t.order_ = order;
  return t;
}

DType DType::raw_bits(uint64_t bits) {
  if (bits == 0 || bits % 8 != 0) {
    throw Error(ErrorCategory::kType,
                fmt::format("raw bits r{} is not a positive multiple of 8", bits));
  }
  DType t;
  t.kind_ = DTypeKind::kRawBits;
  t.size_ = bits / 8;
  return t;
}

DType DType::time(bool duration, std::string unit, uint64_t scale, ByteOrder order) {
  static const std::set<std::string> kUnits = {"Y",  "M",  "W",  "D",  "h",  "m",  "s",
                                               "ms", "us", "ns", "ps", "fs", "as", ""};
  // numpy's scale is a C int (at most 2^31 - 1); its generic unit has none.
  if (!kUnits.count(unit) || scale == 0 || scale >= (uint64_t{1} << 31) ||
      (unit.empty() && scale != 1)) {
    throw Error(ErrorCategory::kType,
                fmt::format("numpy has no {} unit '{}' with scale {}",
                            duration ? "timedelta64" : "datetime64", unit, scale));
  }
  DType t;
  t.kind_ = DTypeKind::kTime;
  t.size_ = 8;
  t.unit_size_ = 8;
  t.order_ = order;
  auto d = std::make_shared<Details>();
  d->tag = std::move(unit);  // the unit is the time type's tag
  d->duration = duration;
  d->time_scale = scale;
  t.details_ = std::move(d);
  return t;
}

const std::string& DType::time_unit() const {
  return kind_ == DTypeKind::kTime ? tag() : kNoTag;
}
bool DType::is_duration() const noexcept {
  return kind_ == DTypeKind::kTime && details_ && details_->duration;
}
uint64_t DType::time_scale() const noexcept {
  return kind_ == DTypeKind::kTime && details_ ? details_->time_scale : 1;
}

DType DType::opaque(uint64_t bytes, std::string tag) {
  DType t;
  t.kind_ = DTypeKind::kOpaque;
  t.size_ = bytes;
  auto d = std::make_shared<Details>();
  d->tag = std::move(tag);
  t.details_ = std::move(d);
  return t;
}

DType DType::enumeration(const DType& base, std::vector<DTypeEnumMember> members) {
  if (!base.is_integer()) {
    throw Error(ErrorCategory::kType,
                "an enum's base must be an integer type, not " + base.to_string());
  }
  DType t = base;
  t.kind_ = DTypeKind::kEnum;
  auto d = std::make_shared<Details>();
  d->base = std::make_shared<const DType>(base);
  d->enum_members = std::move(members);
  t.details_ = std::move(d);
  return t;
}

DType DType::compound(std::vector<DTypeField> fields, uint64_t size, std::string name) {
  // Every field must lie inside the element, whatever the description said: readers copy
  // fields by offset, so a size that wrapped past 2^64 would send them outside their buffer.
  uint64_t end = 0;
  for (const auto& f : fields) {
    std::optional<uint64_t> bytes = f.type->size();
    for (int64_t n : f.shape) {
      if (!bytes) break;
      bytes = checked_mul(*bytes, static_cast<uint64_t>(n < 0 ? 0 : n));
    }
    std::optional<uint64_t> field_end = bytes ? checked_add(f.offset, *bytes) : std::nullopt;
    if (!field_end) {
      throw Error(ErrorCategory::kType,
                  fmt::format("field '{}' of struct '{}' (offset {}) ends beyond 2^64 bytes",
                              f.name, name, f.offset));
    }
    if (size != 0 && *field_end > size) {
      throw Error(ErrorCategory::kType,
                  fmt::format("field '{}' of struct '{}' ends at byte {}, past the struct's "
                              "size of {} bytes",
                              f.name, name, *field_end, size));
    }
    end = std::max(end, *field_end);
  }
  DType t;
  t.kind_ = DTypeKind::kCompound;
  t.size_ = size == 0 ? end : size;
  auto d = std::make_shared<Details>();
  d->fields = std::move(fields);
  d->name = std::move(name);
  t.details_ = std::move(d);
  return t;
}

DType DType::fixed_array(const DType& base, std::vector<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t n : shape) {
    if (n < 0) throw Error(ErrorCategory::kType, "a fixed array dimension cannot be negative");
    auto next = checked_mul(count, static_cast<uint64_t>(n));
    if (!next) throw Error(ErrorCategory::kType, "a fixed array of more than 2^64 elements");
    count = *next;
  }
  auto bytes = checked_mul(count, base.size());
  if (!bytes) throw Error(ErrorCategory::kType, "a fixed array of more than 2^64 bytes");
  DType t;
  t.kind_ = DTypeKind::kFixedArray;
  t.size_ = *bytes;
  auto d = std::make_shared<Details>();
  d->base = std::make_shared<const DType>(base);
  d->shape = std::move(shape);
  t.details_ = std::move(d);
  return t;
}

DType DType::vlen(const DType& base) {
  DType t;
  t.kind_ = DTypeKind::kVLen;
  t.size_ = 16;
  auto d = std::make_shared<Details>();
  d->base = std::make_shared<const DType>(base);
  t.details_ = std::move(d);
  return t;
}

DType DType::vlen_bytes() {
  DType t = vlen(uint(1));
  auto d = std::make_shared<Details>(*t.details_);
  d->tag = "bytes";
  t.details_ = std::move(d);
  return t;
}

bool DType::is_bytes_objects() const noexcept {
  return kind_ == DTypeKind::kVLen && details_ && details_->tag == "bytes";
}

DType DType::reference(ReferenceKind kind) {
  DType t;
  t.kind_ = DTypeKind::kReference;
  t.reference_kind_ = kind;
  t.size_ = 8;
  return t;
}

const std::string& DType::tag() const {
  return details_ ? details_->tag : kNoTag;
}
const std::string& DType::name() const {
  return details_ ? details_->name : kNoTag;
}
const std::vector<DTypeField>& DType::fields() const {
  return details_ ? details_->fields : kNoFields;
}
const std::vector<DTypeEnumMember>& DType::enum_members() const {
  return details_ ? details_->enum_members : kNoMembers;
}
const std::vector<int64_t>& DType::array_shape() const {
  return details_ ? details_->shape : kNoShape;
}
const DType& DType::base() const {
  if (!details_ || !details_->base) {
    throw Error(ErrorCategory::kUsage, "type " + to_string() + " has no base type");
  }
  return *details_->base;
}

bool DType::is_numeric() const noexcept {
  switch (kind_) {
    case DTypeKind::kBool:
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
    case DTypeKind::kFloat:
    case DTypeKind::kComplex:
    case DTypeKind::kPointer:
      return true;
    default:
      return false;
  }
}

bool DType::needs_swap() const noexcept {
  switch (kind_) {
    case DTypeKind::kCompound:
      for (const auto& f : fields())
        if (f.type->needs_swap()) return true;
      return false;
    case DTypeKind::kFixedArray:
      return base().needs_swap();
    default:
      return unit_size_ > 1 && (order_ == ByteOrder::kLittle || order_ == ByteOrder::kBig) &&
             order_ != native_byte_order();
  }
}

bool DType::holds_vlen() const noexcept {
  switch (kind_) {
    case DTypeKind::kVLen:
      return true;
    case DTypeKind::kCompound:
      for (const auto& f : fields())
        if (f.type->holds_vlen()) return true;
      return false;
    case DTypeKind::kFixedArray:
      return base().holds_vlen();
    default:
      return false;
  }
}

DType DType::with_byte_order(ByteOrder order) const {
  DType t = *this;
  switch (kind_) {
    case DTypeKind::kCompound: {
      std::vector<DTypeField> fields = this->fields();
      for (auto& f : fields) f.type = std::make_shared<const DType>(f.type->with_byte_order(order));
      return compound(std::move(fields), size_, name());
    }
    case DTypeKind::kFixedArray:
      return fixed_array(base().with_byte_order(order), array_shape());
    case DTypeKind::kEnum:
      return enumeration(base().with_byte_order(order), enum_members());
    default:
      if (unit_size_ > 1 && kind_ != DTypeKind::kRawBits && kind_ != DTypeKind::kOpaque)
        t.order_ = order;
      return t;
  }
}

DType DType::from_typestr(std::string_view s) {
  auto fail = [&]() -> Error {
    return Error(ErrorCategory::kType, fmt::format("'{}' is not a numpy typestr", s));
  };
  if (s == "?") return boolean();
  if (s.size() < 2) throw fail();
  ByteOrder order = native_byte_order();
  size_t i = 0;
  switch (s[0]) {
    case '<':
      order = ByteOrder::kLittle;
      i = 1;
      break;
    case '>':
      order = ByteOrder::kBig;
      i = 1;
      break;
    case '|':
      order = ByteOrder::kNotApplicable;
      i = 1;
      break;
    case '=':
      i = 1;
      break;
    default:
      break;
  }
  if (i >= s.size()) throw fail();
  char code = s[i++];
  if (code == '?' && i == s.size()) return boolean();
  if ((code == 'M' || code == 'm') && s.substr(i, 1) == "8") {
    // numpy's datetime64 / timedelta64: "<M8", "<M8[D]", "<m8[10ms]".
    std::string_view rest = s.substr(i + 1);
    std::string unit;
    uint64_t scale = 1;
    if (!rest.empty()) {
      if (rest.size() < 3 || rest.front() != '[' || rest.back() != ']') throw fail();
      rest = rest.substr(1, rest.size() - 2);
      size_t digits = 0;
      while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
      if (digits > 0) {
        auto [end, ec] = std::from_chars(rest.data(), rest.data() + digits, scale);
        if (ec != std::errc() || end != rest.data() + digits) throw fail();
      }
      unit = std::string(rest.substr(digits));
      if (unit.empty()) throw fail();
    }
    try {
      return time(code == 'm', unit, scale,
                  order == ByteOrder::kNotApplicable ? native_byte_order() : order);
    } catch (const Error&) {
      throw fail();
    }
  }
  uint64_t n = 0;
  auto digits = s.substr(i);
  if (digits.empty()) throw fail();
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) throw fail();
  // A '|' on a multi-byte numeric means "not relevant" in numpy; treat as native.
  ByteOrder numeric_order = order == ByteOrder::kNotApplicable ? native_byte_order() : order;
  auto width = [&]() -> unsigned {
    if (n > 16) throw fail();
    return static_cast<unsigned>(n);
  };
  try {
    switch (code) {
      case 'b':
        if (n != 1) throw fail();
        return boolean();
      case 'i':
        return int_(width(), numeric_order);
      case 'u':
        return uint(width(), numeric_order);
      case 'f':
        return float_(width(), numeric_order);
      case 'c':
        return complex(width(), numeric_order);
      case 'S':
      case 'a':
        return text(TextEncoding::kAscii, n);
      case 'U':
        return text(TextEncoding::kUtf32, n, numeric_order);
      case 'V':
        return opaque(n);
      default:
        throw fail();
    }
  } catch (const Error&) {
    throw fail();
  }
}

std::string DType::typestr() const {
  auto numeric = [&](char code) {
    return fmt::format("{}{}{}", byte_order_char(order_), code, size_);
  };
  switch (kind_) {
    case DTypeKind::kBool:
      return "|b1";
    case DTypeKind::kInt:
      return numeric('i');
    case DTypeKind::kUInt:
      return numeric('u');
    case DTypeKind::kFloat:
      return numeric('f');
    case DTypeKind::kComplex:
      if (size_ == 4) break;  // numpy has no complex of two float16
      return numeric('c');
    case DTypeKind::kText:
      if (encoding_ == TextEncoding::kAscii) return fmt::format("|S{}", text_length_);
      if (encoding_ == TextEncoding::kUtf32) {
        return fmt::format("{}U{}", byte_order_char(order_), text_length_);
      }
      break;
    case DTypeKind::kRawBits:
    case DTypeKind::kOpaque:
      return fmt::format("|V{}", size_);
    case DTypeKind::kTime:
      return to_string();
    default:
      break;
  }
  throw Error(ErrorCategory::kType, "numpy has no typestr for " + to_string());
}

std::string DType::to_string() const {
  char o = byte_order_char(order_);
  switch (kind_) {
    case DTypeKind::kBool:
      return "|b1";
    case DTypeKind::kInt:
      return fmt::format("{}i{}", o, size_);
    case DTypeKind::kUInt:
      return fmt::format("{}u{}", o, size_);
    case DTypeKind::kFloat:
      return fmt::format("{}f{}", o, size_);
    case DTypeKind::kComplex:
      return fmt::format("{}c{}", o, size_);
    case DTypeKind::kPointer:
      return fmt::format("{}p{}", o, size_);
    case DTypeKind::kText: {
      const char* code = encoding_ == TextEncoding::kAscii   ? "S1"
                         : encoding_ == TextEncoding::kUtf8  ? "U1"
                         : encoding_ == TextEncoding::kUtf16 ? "U2"
                                                             : "U4";
      if (string_) {
        if (encoding_ == TextEncoding::kAscii) return fmt::format("|S{}", text_length_);
        if (encoding_ == TextEncoding::kUtf32) return fmt::format("{}U{}", o, text_length_);
        return fmt::format("{}{}*{}", o, code, text_length_);
      }
      if (text_length_ == 1) return fmt::format("{}{}", o, code);
      return fmt::format("{}{}[{}]", o, code, text_length_);
    }
    case DTypeKind::kRawBits:
      return fmt::format("r{}", bits());
    case DTypeKind::kOpaque:
      return tag().empty() ? fmt::format("V{}", size_) : fmt::format("V{}:{}", size_, tag());
    case DTypeKind::kEnum: {
      std::string s = "enum<" + base().to_string() + ">{";
      for (size_t i = 0; i < enum_members().size(); ++i) {
        if (i) s += ", ";
        s += fmt::format("{}={}", enum_members()[i].name, enum_members()[i].value);
      }
      return s + "}";
    }
    case DTypeKind::kCompound: {
      std::string s = "{";
      for (size_t i = 0; i < fields().size(); ++i) {
        const auto& f = fields()[i];
        if (i) s += ", ";
        s += f.name + ":" + f.type->to_string();
        if (!f.shape.empty()) s += fmt::format("[{}]", fmt::join(f.shape, ","));
        s += fmt::format("@{}", f.offset);
      }
      return s + "}";
    }
    case DTypeKind::kFixedArray:
      return fmt::format("{}[{}]", base().to_string(), fmt::join(array_shape(), ","));
    case DTypeKind::kVLen:
      return "vlen<" + base().to_string() + ">";
    case DTypeKind::kReference:
      return reference_kind_ == ReferenceKind::kObject   ? "objref"
             : reference_kind_ == ReferenceKind::kRegion ? "regionref"
                                                         : "regionref<element>";
    case DTypeKind::kTime: {
      const char code = is_duration() ? 'm' : 'M';
      if (time_unit().empty()) return fmt::format("{}{}8", o, code);
      if (time_scale() == 1) return fmt::format("{}{}8[{}]", o, code, time_unit());
      return fmt::format("{}{}8[{}{}]", o, code, time_scale(), time_unit());
    }
  }
  return "?";
}

bool operator==(const DType& a, const DType& b) {
  if (a.kind_ != b.kind_ || a.order_ != b.order_ || a.size_ != b.size_ ||
      a.encoding_ != b.encoding_ || a.text_length_ != b.text_length_ || a.string_ != b.string_ ||
      a.reference_kind_ != b.reference_kind_) {
    return false;
  }
  switch (a.kind_) {
    case DTypeKind::kOpaque:
      return a.tag() == b.tag();
    case DTypeKind::kTime:
      return a.tag() == b.tag() && a.is_duration() == b.is_duration() &&
             a.time_scale() == b.time_scale();
    case DTypeKind::kEnum:
      if (a.enum_members().size() != b.enum_members().size()) return false;
      for (size_t i = 0; i < a.enum_members().size(); ++i) {
        if (a.enum_members()[i].name != b.enum_members()[i].name ||
            a.enum_members()[i].value != b.enum_members()[i].value)
          return false;
      }
      return a.base() == b.base();
    case DTypeKind::kCompound:
      if (a.fields().size() != b.fields().size()) return false;
      for (size_t i = 0; i < a.fields().size(); ++i) {
        const auto& x = a.fields()[i];
        const auto& y = b.fields()[i];
        if (x.name != y.name || x.offset != y.offset || x.shape != y.shape || !(*x.type == *y.type))
          return false;
      }
      return true;
    case DTypeKind::kFixedArray:
      return a.array_shape() == b.array_shape() && a.base() == b.base();
    case DTypeKind::kVLen:
      return a.base() == b.base();
    default:
      return true;
  }
}

}  // namespace dudley
