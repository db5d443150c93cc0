#include "datatype.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "dudley/core/integer_bytes.hpp"

namespace dudley::hdf5 {

uint64_t raw_size(const DType& t) {
  switch (t.kind()) {
    case DTypeKind::kVLen:
      return t.base().joins_units() ? sizeof(char*) : sizeof(hvl_t);
    case DTypeKind::kReference:
      return t.reference_kind() == ReferenceKind::kObject ? sizeof(hobj_ref_t)
                                                          : sizeof(hdset_reg_ref_t);
    case DTypeKind::kFixedArray: {
      uint64_t n = 1;
      for (int64_t d : t.array_shape()) n *= static_cast<uint64_t>(d);
      return n * raw_size(t.base());
    }
    default:
      return t.size();
  }
}

namespace {

[[noreturn]] void unsupported(const std::string& what, const std::string& type) {
  throw Error(ErrorCategory::kType,
              fmt::format("{}: this build has no type for HDF5 {}", what, type));
}

ByteOrder order_of(hid_t t, size_t size) {
  if (size <= 1) return ByteOrder::kNotApplicable;
  return H5Tget_order(t) == H5T_ORDER_BE ? ByteOrder::kBig : ByteOrder::kLittle;
}

// The bytes a compound field takes in the model (its type times its shape).
uint64_t field_bytes(const DTypeField& f) {
  uint64_t n = f.type->size();
  for (int64_t d : f.shape) n *= static_cast<uint64_t>(d);
  return n;
}

// A compound's fields laid out afresh, in their order in the file, when some member's size
// in the model differs from its size in the library: a variable-length string is a char*
// of 8 bytes there and a VLenElement of 16 here, so the file's offsets (h5py packs members
// as numpy does) would overlap. Each field gets a slot wide enough for both forms (a region
// reference is 12 bytes in the library, 8 in the model): the memory type h5_type builds from
// these offsets then holds the library's form of every field in place.
std::vector<DTypeField> relaid_out(std::vector<DTypeField> fields) {
  std::stable_sort(fields.begin(), fields.end(),
                   [](const DTypeField& a, const DTypeField& b) { return a.offset < b.offset; });
  uint64_t at = 0;
  for (DTypeField& f : fields) {
    f.offset = at;
    uint64_t count = 1;
    for (int64_t d : f.shape) count *= static_cast<uint64_t>(d);
    at += std::max(field_bytes(f), count * raw_size(*f.type));
  }
  return fields;
}

std::string member_name(hid_t t, unsigned i) {
  char* n = H5Tget_member_name(t, i);
  std::string name = n ? n : "";
  H5free_memory(n);
  return name;
}

}  // namespace

namespace {

// A compound type: its members; a pair of floats named r and i is a complex number, as
// h5py writes them.
DType compound_of(hid_t t, size_t size, const std::string& what) {
  const int n = H5Tget_nmembers(t);
  std::vector<DTypeField> fields;
  bool relaid = false;  // some member's model size is not its size in the library
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<unsigned>(i);
    Handle member(H5Tget_member_type(t, u));
    DTypeField f;
    f.name = member_name(t, u);
    f.offset = H5Tget_member_offset(t, u);
    DType ft = dtype_of(member.get(), what);
    if (ft.kind() == DTypeKind::kFixedArray) {
      f.shape = ft.array_shape();
      ft = DType(ft.base());
    }
    f.type = std::make_shared<const DType>(ft);
    if (field_bytes(f) != H5Tget_size(member.get())) relaid = true;
    fields.push_back(std::move(f));
  }
  if (relaid) return DType::compound(relaid_out(std::move(fields)), 0);
  if (fields.size() == 2 && fields[0].name == "r" && fields[1].name == "i" &&
      fields[0].shape.empty() && fields[1].shape.empty() &&
      fields[0].type->kind() == DTypeKind::kFloat && *fields[0].type == *fields[1].type &&
      fields[0].offset == 0 && fields[1].offset == fields[0].type->size() &&
      size == 2 * fields[0].type->size() && size >= 8) {
    return DType::complex(static_cast<unsigned>(size), fields[0].type->byte_order());
  }
  return DType::compound(std::move(fields), size);
}

// An enumeration: its base integer and members; h5py's FALSE/TRUE over int8 is a boolean.
DType enum_of(hid_t t, const std::string& what) {
  Handle super(H5Tget_super(t));
  const DType base = dtype_of(super.get(), what);
  if (!base.is_integer()) unsupported(what, "enums over a non-integer type");
  const int n = H5Tget_nmembers(t);
  std::vector<DTypeEnumMember> members;
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<unsigned>(i);
    // Member values come in the enum's own type (its byte order): read them natively.
    Handle native(H5Tget_native_type(super.get(), H5T_DIR_ASCEND));
    unsigned char raw[8] = {};
    H5Tget_member_value(t, u, raw);
    H5Tconvert(super.get(), native.get(), 1, raw, nullptr, H5P_DEFAULT);
    // Sign-extended for a signed base; a little-endian machine's low bytes otherwise.
    const auto v =
        static_cast<int64_t>(load_native_integer(raw, base.size(), base.kind() == DTypeKind::kInt));
    members.push_back({member_name(t, u), v});
  }
  if (base.size() == 1 && base.kind() == DTypeKind::kInt && members.size() == 2 &&
      members[0].name == "FALSE" && members[0].value == 0 && members[1].name == "TRUE" &&
      members[1].value == 1) {
    return DType::boolean();
  }
  return DType::enumeration(base, std::move(members));
}

}  // namespace

DType dtype_of(hid_t t, const std::string& what) {
  Lock lock(library_mutex());
  const size_t size = H5Tget_size(t);
  switch (H5Tget_class(t)) {
    case H5T_INTEGER: {
      if (size != 1 && size != 2 && size != 4 && size != 8)
        unsupported(what, fmt::format("integers of {} bytes", size));
      const auto bytes = static_cast<unsigned>(size);
      return H5Tget_sign(t) == H5T_SGN_NONE ? DType::uint(bytes, order_of(t, size))
                                            : DType::int_(bytes, order_of(t, size));
    }
    case H5T_FLOAT: {
      if (size != 2 && size != 4 && size != 8)
        unsupported(what, fmt::format("floats of {} bytes", size));
      // Only IEEE binary16/32/64 are read as such: another layout of the same size
      // (bfloat16's 8-bit exponent and 7-bit mantissa) would read as wrong numbers.
      size_t sign = 0, exponent_at = 0, exponent = 0, mantissa_at = 0, mantissa = 0;
      H5Tget_fields(t, &sign, &exponent_at, &exponent, &mantissa_at, &mantissa);
      const size_t bits = size * 8;
      const size_t ieee_exponent = size == 2 ? 5 : size == 4 ? 8 : 11;
      const size_t bias = (size_t{1} << (ieee_exponent - 1)) - 1;
      if (sign != bits - 1 || exponent != ieee_exponent || exponent_at != bits - 1 - exponent ||
          mantissa_at != 0 || mantissa != exponent_at || H5Tget_ebias(t) != bias ||
          H5Tget_precision(t) != bits || H5Tget_offset(t) != 0) {
        unsupported(
            what,
            fmt::format("floats of {} bytes with a {}-bit exponent and a {}-bit "
                        "mantissa{} (not IEEE binary{})",
                        size, exponent, mantissa,
                        size == 2 && exponent == 8 && mantissa == 7 ? " (bfloat16)" : "", bits));
      }
      return DType::float_(static_cast<unsigned>(size), order_of(t, size));
    }
    case H5T_STRING: {
      const TextEncoding enc =
          H5Tget_cset(t) == H5T_CSET_UTF8 ? TextEncoding::kUtf8 : TextEncoding::kAscii;
      if (H5Tis_variable_str(t) > 0) return DType::vlen(DType::text(enc));
      return DType::string(enc, size);
    }
    case H5T_BITFIELD:
      // Bits as the unsigned integer of their size, as h5py reads them (the library converts
      // them through register_conversions' path).
      if (size == 1 || size == 2 || size == 4 || size == 8)
        return DType::uint(static_cast<unsigned>(size), order_of(t, size));
      return DType::raw_bits(size * 8);
    case H5T_OPAQUE: {
      char* tag = H5Tget_tag(t);
      std::string text = tag ? tag : "";
      H5free_memory(tag);
      return DType::opaque(size, text);
    }
    case H5T_COMPOUND:
      return compound_of(t, size, what);
    case H5T_REFERENCE:
      if (H5Tequal(t, H5T_STD_REF_OBJ) > 0) return DType::reference(ReferenceKind::kObject);
      if (H5Tequal(t, H5T_STD_REF_DSETREG) > 0) return DType::reference(ReferenceKind::kRegion);
      unsupported(what, "references of the kind HDF5 1.12 introduced (H5T_STD_REF)");
    case H5T_ENUM:
      return enum_of(t, what);
    case H5T_VLEN: {
      Handle super(H5Tget_super(t));
      return DType::vlen(dtype_of(super.get(), what));
    }
    case H5T_ARRAY: {
      Handle super(H5Tget_super(t));
      const int rank = H5Tget_array_ndims(t);
      std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
      H5Tget_array_dims2(t, dims.data());
      std::vector<int64_t> shape(dims.begin(), dims.end());
      return DType::fixed_array(dtype_of(super.get(), what), std::move(shape));
    }
    case H5T_TIME:
      unsupported(what, "time types");
    default:
      unsupported(what, "types of this class");
  }
}

namespace {

hid_t integer_type(const DType& t, bool big) {
  const bool s = t.kind() == DTypeKind::kInt;
  switch (t.size()) {
    case 1:
      return s ? H5T_STD_I8LE : H5T_STD_U8LE;
    case 2:
      return big ? (s ? H5T_STD_I16BE : H5T_STD_U16BE) : (s ? H5T_STD_I16LE : H5T_STD_U16LE);
    case 4:
      return big ? (s ? H5T_STD_I32BE : H5T_STD_U32BE) : (s ? H5T_STD_I32LE : H5T_STD_U32LE);
    default:
      return big ? (s ? H5T_STD_I64BE : H5T_STD_U64BE) : (s ? H5T_STD_I64LE : H5T_STD_U64LE);
  }
}

}  // namespace

Handle h5_type(const DType& t, bool memory) {
  Lock lock(library_mutex());
  const bool big = !memory && t.byte_order() == ByteOrder::kBig;
  switch (t.kind()) {
    case DTypeKind::kBool: {
      Handle e(H5Tenum_create(H5T_STD_I8LE));
      int8_t f = 0, tr = 1;
      H5Tenum_insert(e.get(), "FALSE", &f);
      H5Tenum_insert(e.get(), "TRUE", &tr);
      return e;
    }
    case DTypeKind::kInt:
    case DTypeKind::kUInt:
      return Handle(H5Tcopy(integer_type(t, big)));
    case DTypeKind::kFloat: {
      if (t.size() == 2) {
        // IEEE binary16, as h5py defines it.
        Handle h(H5Tcopy(big ? H5T_IEEE_F32BE : H5T_IEEE_F32LE));
        H5Tset_fields(h.get(), 15, 10, 5, 0, 10);
        H5Tset_size(h.get(), 2);
        H5Tset_ebias(h.get(), 15);
        return h;
      }
      return Handle(H5Tcopy(t.size() == 4 ? (big ? H5T_IEEE_F32BE : H5T_IEEE_F32LE)
                                          : (big ? H5T_IEEE_F64BE : H5T_IEEE_F64LE)));
    }
    case DTypeKind::kComplex: {
      const DType part = DType::float_(static_cast<unsigned>(t.size() / 2),
                                       memory ? native_byte_order() : t.byte_order());
      Handle p = h5_type(part, memory);
      Handle c(H5Tcreate(H5T_COMPOUND, t.size()));
      H5Tinsert(c.get(), "r", 0, p.get());
      H5Tinsert(c.get(), "i", part.size(), p.get());
      return c;
    }
    case DTypeKind::kText: {
      if (t.encoding() == TextEncoding::kUtf16 || t.encoding() == TextEncoding::kUtf32)
        throw Error(
            ErrorCategory::kType,
            fmt::format("HDF5 has no strings of {} ({})",
                        t.encoding() == TextEncoding::kUtf16 ? "UTF-16" : "UTF-32", t.to_string()));
      Handle s(H5Tcopy(H5T_C_S1));
      H5Tset_size(s.get(), t.is_string() ? std::max<uint64_t>(t.text_length(), 1) : 1);
      H5Tset_strpad(s.get(), H5T_STR_NULLPAD);
      H5Tset_cset(s.get(), t.encoding() == TextEncoding::kUtf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
      return s;
    }
    case DTypeKind::kVLen: {
      const DType& base = t.base();
      if (base.joins_units()) {
        if (base.encoding() == TextEncoding::kUtf16 || base.encoding() == TextEncoding::kUtf32)
          throw Error(ErrorCategory::kType, "HDF5 has no UTF-16 or UTF-32 strings");
        Handle s(H5Tcopy(H5T_C_S1));
        H5Tset_size(s.get(), H5T_VARIABLE);
        H5Tset_cset(s.get(),
                    base.encoding() == TextEncoding::kUtf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
        return s;
      }
      Handle b = h5_type(base, memory);
      return Handle(H5Tvlen_create(b.get()));
    }
    case DTypeKind::kOpaque:
    case DTypeKind::kRawBits: {
      Handle o(H5Tcreate(H5T_OPAQUE, t.size()));
      const std::string tag = t.kind() == DTypeKind::kOpaque ? t.tag() : "";
      if (!tag.empty()) H5Tset_tag(o.get(), tag.c_str());
      return o;
    }
    case DTypeKind::kEnum: {
      Handle base =
          h5_type(memory ? t.base().with_byte_order(t.base().size() > 1 ? native_byte_order()
                                                                        : ByteOrder::kNotApplicable)
                         : t.base(),
                  memory);
      Handle e(H5Tenum_create(base.get()));
      Handle native(H5Tget_native_type(base.get(), H5T_DIR_ASCEND));
      for (const DTypeEnumMember& m : t.enum_members()) {
        unsigned char raw[8];
        std::memcpy(raw, &m.value, 8);  // the low bytes on a little-endian machine
        H5Tconvert(native.get(), base.get(), 1, raw, nullptr, H5P_DEFAULT);
        H5Tenum_insert(e.get(), m.name.c_str(), raw);
      }
      return e;
    }
    case DTypeKind::kCompound: {
      Handle c(H5Tcreate(H5T_COMPOUND, t.size()));
      for (const DTypeField& f : t.fields()) {
        Handle ft = h5_type(*f.type, memory);
        if (!f.shape.empty()) {
          std::vector<hsize_t> dims(f.shape.begin(), f.shape.end());
          ft = Handle(H5Tarray_create2(ft.get(), static_cast<unsigned>(dims.size()), dims.data()));
        }
        if (H5Tinsert(c.get(), f.name.c_str(), f.offset, ft.get()) < 0)
          throw library_error(ErrorCategory::kType,
                              fmt::format("compound field '{}' cannot be stored", f.name), "");
      }
      return c;
    }
    case DTypeKind::kFixedArray: {
      Handle b = h5_type(t.base(), memory);
      std::vector<hsize_t> dims(t.array_shape().begin(), t.array_shape().end());
      return Handle(H5Tarray_create2(b.get(), static_cast<unsigned>(dims.size()), dims.data()));
    }
    case DTypeKind::kReference:
      return Handle(H5Tcopy(t.reference_kind() == ReferenceKind::kObject ? H5T_STD_REF_OBJ
                                                                         : H5T_STD_REF_DSETREG));
    case DTypeKind::kPointer:
      break;
  }
  throw Error(ErrorCategory::kType, fmt::format("HDF5 has no type for {}", t.to_string()));
}

namespace {

// A soft conversion from a bitfield to the unsigned integer of its size (libhdf5 has none):
// the same bits, byte-swapped where the two orders differ.
herr_t bitfield_to_unsigned(hid_t source, hid_t target, H5T_cdata_t* cdata, size_t count,
                            size_t stride, size_t /*background_stride*/, void* buffer,
                            void* /*background*/, hid_t /*transfer*/) {
  switch (cdata->command) {
    case H5T_CONV_INIT:
      cdata->need_bkg = H5T_BKG_NO;
      return H5Tget_class(source) == H5T_BITFIELD && H5Tget_class(target) == H5T_INTEGER &&
                     H5Tget_sign(target) == H5T_SGN_NONE &&
                     H5Tget_size(source) == H5Tget_size(target)
                 ? 0
                 : -1;
    case H5T_CONV_CONV: {
      const size_t size = H5Tget_size(source);
      if (size <= 1 || H5Tget_order(source) == H5Tget_order(target)) return 0;
      auto* bytes = static_cast<unsigned char*>(buffer);
      const size_t step = stride != 0 ? stride : size;
      for (size_t i = 0; i < count; ++i) std::reverse(bytes + i * step, bytes + i * step + size);
      return 0;
    }
    default:  // H5T_CONV_FREE: nothing kept
      return 0;
  }
}

}  // namespace

void register_conversions() {
  Lock lock(library_mutex());
  // Registered from the classes' most common members; a soft path applies to every
  // bitfield and integer whose classes match, whatever their size.
  H5Tregister(H5T_PERS_SOFT, "dudley_bitfield_to_unsigned", H5T_NATIVE_B8, H5T_NATIVE_UINT8,
              bitfield_to_unsigned);
}

bool needs_conversion(const DType& t) {
  switch (t.kind()) {
    case DTypeKind::kVLen:
    case DTypeKind::kReference:
      return true;
    case DTypeKind::kCompound:
      for (const DTypeField& f : t.fields()) {
        if (needs_conversion(*f.type)) return true;
      }
      return false;
    case DTypeKind::kFixedArray:
    case DTypeKind::kEnum:
      return needs_conversion(t.base());
    default:
      return false;
  }
}

bool stored_as_is(const DType& t) {
  return t.is_numeric() && t.kind() != DTypeKind::kPointer;
}

bool is_user_defined(hid_t type) {
  const H5T_class_t kind = H5Tget_class(type);
  return kind == H5T_ENUM || kind == H5T_COMPOUND || kind == H5T_OPAQUE || kind == H5T_VLEN ||
         kind == H5T_ARRAY;
}

}  // namespace dudley::hdf5
