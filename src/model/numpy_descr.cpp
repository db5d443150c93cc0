#include "dudley/model/numpy_descr.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::model {
namespace {

constexpr size_t kMaxDepth = 32;

[[noreturn]] void refuse(const std::string& what) {
  throw Error(ErrorCategory::kType, what);
}

DType from_descr(const Value& descr, size_t depth) {
  if (depth > kMaxDepth) refuse("descr nested too deeply");
  if (descr.is<std::string>()) {
    const std::string& s = descr.as<std::string>();
    if (s.find('O') != std::string::npos && s.size() <= 3)
      refuse("an object dtype ('" + s + "'): numpy pickles its elements");
    DType t;
    try {
      t = DType::from_typestr(s);
    } catch (const Error& e) {
      refuse(fmt::format("descr '{}': {}", s, e.message()));
    }
    // numpy's S<n> and U<n> are one string per element.
    if (t.kind() == DTypeKind::kText)
      return DType::string(t.encoding(), t.text_length(), t.byte_order());
    return t;
  }
  if (!descr.is<ValueList>() || descr.as<ValueList>().empty())
    refuse("descr is neither a type string nor a list of fields");
  std::vector<DTypeField> fields;
  uint64_t offset = 0;
  for (const Value& f : descr.as<ValueList>()) {
    const auto* t = f.is<ValueList>() ? &f.as<ValueList>() : nullptr;
    if (!t || t->size() < 2 || t->size() > 3 || !(*t)[0].is<std::string>())
      refuse("each field is (name, descr) or (name, descr, shape)");
    DTypeField field;
    field.name = (*t)[0].as<std::string>();
    const DType ft = from_descr((*t)[1], depth + 1);
    uint64_t count = 1;
    if (t->size() == 3) {
      const Value& shape = (*t)[2];
      const ValueList one{shape};
      const ValueList& dims = shape.is<ValueList>() ? shape.as<ValueList>() : one;
      for (const Value& d : dims) {
        if (!d.is<int64_t>() || d.as<int64_t>() < 0)
          refuse("a field shape holds non-negative integers");
        field.shape.push_back(d.as<int64_t>());
        const auto m = checked_mul(count, static_cast<uint64_t>(d.as<int64_t>()));
        if (!m) refuse("a field is too large");
        count = *m;
      }
    }
    const auto bytes = checked_mul(count, ft.size());
    const auto next = bytes ? checked_add(offset, *bytes) : std::nullopt;
    if (!next) refuse("the structure is too large");
    // numpy spells the gaps of an aligned or offset dtype as unnamed void fields.
    const bool padding = field.name.empty() && ft.kind() == DTypeKind::kOpaque && count == 1;
    if (!padding) {
      field.offset = offset;
      field.type = std::make_shared<const DType>(ft);
      fields.push_back(std::move(field));
    }
    offset = *next;
  }
  if (fields.empty()) refuse("a structured dtype of padding alone");
  return DType::compound(std::move(fields), offset);
}

std::string typestr_of(const DType& t) {
  if (t.kind() == DTypeKind::kEnum) return typestr_of(t.base());
  if (t.kind() == DTypeKind::kText) {
    // numpy has bytes (S) and UCS-4 (U) strings; other encodings' units are written as
    // bytes of their size.
    const uint64_t n = t.is_string() ? t.text_length() : 1;
    if (t.encoding() == TextEncoding::kUtf32)
      return fmt::format("{}U{}", byte_order_char(t.byte_order()), n);
    return fmt::format("|S{}", n * t.unit_size());
  }
  return t.typestr();
}

Value padding(uint64_t bytes) {
  return Value(ValueList{Value(std::string()), Value(fmt::format("|V{}", bytes))});
}

}  // namespace

DType dtype_from_numpy_descr(const Value& descr) {
  return from_descr(descr, 0);
}

Value numpy_descr_of(const DType& type) {
  if (type.kind() == DTypeKind::kFixedArray) {
    refuse(fmt::format("numpy has no dtype for {} outside a structure", type.to_string()));
  }
  if (type.kind() != DTypeKind::kCompound) return Value(typestr_of(type));
  std::vector<const DTypeField*> fields;
  for (const DTypeField& f : type.fields()) fields.push_back(&f);
  std::stable_sort(fields.begin(), fields.end(),
                   [](const DTypeField* a, const DTypeField* b) { return a->offset < b->offset; });
  ValueList out;
  uint64_t end = 0;
  for (const DTypeField* f : fields) {
    if (f->offset < end) {
      refuse(fmt::format("numpy has no dtype for {}: its fields overlap", type.to_string()));
    }
    if (f->offset > end) out.push_back(padding(f->offset - end));
    // An HDF5 array member is a field with a shape in numpy.
    DType element = *f->type;
    std::vector<int64_t> shape = f->shape;
    if (element.kind() == DTypeKind::kFixedArray) {
      const std::vector<int64_t> inner = element.array_shape();
      shape.insert(shape.end(), inner.begin(), inner.end());
      element = element.base();
    }
    ValueList field{Value(f->name), numpy_descr_of(element)};
    uint64_t count = 1;
    if (!shape.empty()) {
      ValueList dims;
      for (int64_t d : shape) {
        dims.emplace_back(d);
        count *= static_cast<uint64_t>(d);
      }
      field.emplace_back(std::move(dims));
    }
    out.emplace_back(std::move(field));
    end = f->offset + count * element.size();
  }
  if (end < type.size()) out.push_back(padding(type.size() - end));
  return Value(std::move(out));
}

std::string numpy_descr_literal(const Value& descr) {
  if (descr.is<std::string>()) return "'" + descr.as<std::string>() + "'";
  std::vector<std::string> fields;
  for (const Value& f : descr.as<ValueList>()) {
    const ValueList& parts = f.as<ValueList>();
    std::string text =
        fmt::format("('{}', {}", parts[0].as<std::string>(), numpy_descr_literal(parts[1]));
    if (parts.size() == 3) {
      std::vector<int64_t> dims;
      for (const Value& d : parts[2].as<ValueList>()) dims.push_back(d.as<int64_t>());
      text += fmt::format(", ({}{})", fmt::join(dims, ", "), dims.size() == 1 ? "," : "");
    }
    fields.push_back(text + ")");
  }
  return fmt::format("[{}]", fmt::join(fields, ", "));
}

}  // namespace dudley::model
