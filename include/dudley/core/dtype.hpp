// DType: the one type system every format maps to. A DType is a small value (cheap to copy);
// composite types share their immutable details. Byte order is part of the type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dudley {

/// Byte order of a multi-byte scalar.
enum class ByteOrder : uint8_t {
  kNotApplicable,  ///< One-byte types, and composites whose fields carry their own order.
  kLittle,         ///< '<'
  kBig,            ///< '>'
  kUnspecified,    ///< '|' on a multi-byte type in Dudley: the file's default, not yet known.
};

/// The order of the machine we run on (little or big).
ByteOrder native_byte_order();

/// What a DType is.
enum class DTypeKind : uint8_t {
  kBool,        ///< 1 byte, 0 false, anything else true (Dudley b1, numpy ?, Zarr bool).
  kInt,         ///< two's complement signed, 1/2/4/8 bytes.
  kUInt,        ///< unsigned, 1/2/4/8 bytes.
  kFloat,       ///< IEEE 754 binary16/32/64 (2/4/8 bytes).
  kComplex,     ///< (real, imaginary) pair of floats: 4 (two f2), 8 or 16 bytes.
  kText,        ///< One code unit of text (S1, U1, U2, U4) or a fixed string of N units.
  kPointer,     ///< Dudley p4/p8: an integer key naming a pointee.
  kRawBits,     ///< Zarr r<N>: N bits (multiple of 8) without interpretation.
  kOpaque,      ///< NDL opaque / numpy V<n>: n bytes with an optional tag.
  kEnum,        ///< Named integer constants over an integer base type.
  kCompound,    ///< Named fields at byte offsets (struct / numpy structured dtype).
  kFixedArray,  ///< A fixed-shape sub-array of a base type as one element.
  kVLen,        ///< Variable-length sequence of a base type (stored out of line).
  kReference,   ///< An object or region reference (NDL objref / regionref, HDF5).
  kTime,        ///< numpy datetime64 / timedelta64: a signed 8-byte count of units (of
                ///< `scale` times a unit) since 1970-01-01T00:00 or of duration; NaT is
                ///< the smallest int64 (numpy M8[unit] / m8[unit], Zarr v3
                ///< numpy.datetime64 / numpy.timedelta64).
};

/// How text code units are encoded.
enum class TextEncoding : uint8_t {
  kAscii,  ///< Dudley S1, numpy S: bytes; decode as cp1252 falling back to latin-1.
  kUtf8,   ///< Dudley U1.
  kUtf16,  ///< Dudley U2 (UCS-2 / UTF-16 code units).
  kUtf32,  ///< Dudley U4, numpy U, ASDF ucs4.
};

/// Kinds of reference for DTypeKind::kReference.
enum class ReferenceKind : uint8_t {
  kObject,          ///< an object (group or array) of the same file
  kRegion,          ///< a block selection of an array (NDL `regref: {selection: block}`)
  kRegionElements,  ///< an element (point) selection (NDL `selection: element`)
};

class DType;

/// A field of a compound type.
struct DTypeField {
  std::string name;
  std::shared_ptr<const DType> type;  ///< Shared so DType stays copyable and small.
  uint64_t offset = 0;                ///< Byte offset inside one element.
  std::vector<int64_t> shape;         ///< Sub-array shape; empty for a scalar field.
};

/// One named constant of an enum type.
struct DTypeEnumMember {
  std::string name;
  int64_t value = 0;
};

/// A data type. Build one with the static factories; compare with ==.
class DType {
 public:
  /// A one-byte unsigned integer; exists so DType is default constructible.
  DType();

  static DType boolean();
  /// Signed integer of 1, 2, 4 or 8 bytes.
  static DType int_(unsigned bytes, ByteOrder order = native_byte_order());
  /// Unsigned integer of 1, 2, 4 or 8 bytes.
  static DType uint(unsigned bytes, ByteOrder order = native_byte_order());
  /// IEEE float of 2, 4 or 8 bytes.
  static DType float_(unsigned bytes, ByteOrder order = native_byte_order());
  /// Complex pair of floats, total 4, 8 or 16 bytes.
  static DType complex(unsigned bytes, ByteOrder order = native_byte_order());
  /// Text: `length` code units of `encoding` (length 1 is a single code unit, Dudley style).
  static DType text(TextEncoding encoding, uint64_t length = 1,
                    ByteOrder order = native_byte_order());
  /// A fixed-length string of `length` code units per element (numpy S<n>/U<n>, ASDF
  /// `[ascii, n]`/`[ucs4, n]`): each element is one string, NUL-padded. Unlike text(), an
  /// array of these does not make strings of its last dimension.
  static DType string(TextEncoding encoding, uint64_t length,
                      ByteOrder order = native_byte_order());
  /// Dudley pointer key of 4 or 8 bytes.
  static DType pointer(unsigned bytes, ByteOrder order = native_byte_order());
  /// Raw bits; `bits` must be a positive multiple of 8.
  static DType raw_bits(uint64_t bits);
  /// Opaque bytes with an optional descriptive tag.
  static DType opaque(uint64_t bytes, std::string tag = {});
  /// Enum over an integer base type.
  static DType enumeration(const DType& base, std::vector<DTypeEnumMember> members);
  /// Compound of fields; `size` 0 means "end of the last field" (packed, no tail padding).
  /// `name` is the struct's name where the format has one (Dudley, HDF5); "" otherwise.
  static DType compound(std::vector<DTypeField> fields, uint64_t size = 0, std::string name = {});
  /// Fixed-shape sub-array of a base type.
  static DType fixed_array(const DType& base, std::vector<int64_t> shape);
  /// Variable-length sequence of a base type (size is that of a reference to it: 16 bytes).
  static DType vlen(const DType& base);
  /// Variable-length bytes (Zarr's bytes and variable_length_bytes, numcodecs' VLenBytes): a
  /// vlen of uint8, equal to vlen(uint(1)), whose elements Python gives as bytes objects, as
  /// zarr-python does (an HDF5 sequence of uint8 is an array each, as h5py gives it).
  static DType vlen_bytes();
  /// Object or region reference (8 bytes).
  static DType reference(ReferenceKind kind);
  /// numpy's datetime64 (`duration` false) or timedelta64 (true) counting `scale` units of
  /// `unit` ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", or "" for
  /// numpy's generic unit). Throws Error(kType) for another unit or a scale of 0.
  static DType time(bool duration, std::string unit, uint64_t scale = 1,
                    ByteOrder order = native_byte_order());

  /// Parses a numpy array-interface typestr such as "<f8", "|u1", ">c16", "|S10", "<U4",
  /// "|V8", "|b1", "?". Throws Error(kType) naming the text when it is not one.
  static DType from_typestr(std::string_view typestr);

  DTypeKind kind() const noexcept { return kind_; }
  ByteOrder byte_order() const noexcept { return order_; }
  /// Size of one element in bytes.
  uint64_t size() const noexcept { return size_; }
  /// For text: encoding and length in code units.
  TextEncoding encoding() const noexcept { return encoding_; }
  uint64_t text_length() const noexcept { return text_length_; }
  /// Whether each element is a whole string (string()), not a code unit (text()).
  bool is_string() const noexcept { return string_; }
  /// Whether an array of this type makes strings of its last dimension: text made of code
  /// units (Dudley S1/U1/U2/U4), not fixed-length strings.
  bool joins_units() const noexcept { return kind_ == DTypeKind::kText && !string_; }
  /// Bytes per code unit of a text type (1, 2 or 4); for other types the scalar width.
  unsigned unit_size() const noexcept { return unit_size_; }
  /// Bits of a raw-bits type.
  uint64_t bits() const noexcept { return size_ * 8; }
  const std::string& tag() const;
  /// Name of a compound type ("" when anonymous or not a compound).
  const std::string& name() const;
  ReferenceKind reference_kind() const noexcept { return reference_kind_; }
  /// Whether this is vlen_bytes(): elements that are bytes objects to Python.
  bool is_bytes_objects() const noexcept;
  /// For kTime: whether it is a duration (timedelta64), its unit and how many units a count
  /// is (numpy's M8[10ms]: unit "ms", scale 10).
  bool is_duration() const noexcept;
  const std::string& time_unit() const;
  uint64_t time_scale() const noexcept;
  /// Fields of a compound; empty otherwise.
  const std::vector<DTypeField>& fields() const;
  /// Base of an enum, fixed array or vlen. Throws Error(kUsage) for other kinds.
  const DType& base() const;
  const std::vector<DTypeEnumMember>& enum_members() const;
  const std::vector<int64_t>& array_shape() const;

  /// True for bool/int/uint/float/complex/pointer.
  bool is_numeric() const noexcept;
  bool is_integer() const noexcept { return kind_ == DTypeKind::kInt || kind_ == DTypeKind::kUInt; }
  /// True when reading needs a byte swap on this machine for some part of the element.
  bool needs_swap() const noexcept;
  /// True when some part of an element is variable-length (DType::vlen): the element then
  /// points into a heap its array keeps alive, and copies of it must keep that heap too.
  bool holds_vlen() const noexcept;

  /// The same type with a different byte order (recursively for composites).
  DType with_byte_order(ByteOrder order) const;

  /// numpy typestr ("<f8", "|u1", "|S5", "<U3"); Error(kType) when numpy has none
  /// (Dudley U1/U2, pointers, compounds...).
  std::string typestr() const;
  /// Human-readable canonical name: "<f8", "|b1", ">c4", "<U2", "|S1", "<p8", "r16",
  /// "V8", "{x:<f4@0, y:<i4@4}", "enum<|u1>{A=0}", "<f4[3,3]", "vlen<|u1>", "objref".
  std::string to_string() const;

  friend bool operator==(const DType& a, const DType& b);

 private:
  struct Details;
  DTypeKind kind_ = DTypeKind::kUInt;
  ByteOrder order_ = ByteOrder::kNotApplicable;
  TextEncoding encoding_ = TextEncoding::kAscii;
  ReferenceKind reference_kind_ = ReferenceKind::kObject;
  bool string_ = false;
  unsigned unit_size_ = 1;
  uint64_t size_ = 1;
  uint64_t text_length_ = 0;
  std::shared_ptr<const Details> details_;
};

/// "<", ">", "|" or "|" for the order.
char byte_order_char(ByteOrder order);

}  // namespace dudley
