// Attribute values of the model: a JSON-like tree (what ASDF's YAML, Zarr's JSON and Avro
// metadata hold) or a small typed array (what HDF5 and NDL attributes are).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "dudley/core/ndarray.hpp"

namespace dudley::model {

class Value;
using ValueList = std::vector<Value>;
/// Keys in the order the file gave them.
using ValueMap = std::vector<std::pair<std::string, Value>>;
using ValueBytes = std::vector<uint8_t>;

/// A JSON-like value: null, bool, exact 64-bit integers (signed and unsigned), double (NaN
/// and infinities allowed), string, bytes, list, map; with an optional tag (a YAML tag such
/// as ASDF's "tag:stsci.edu:asdf/core/complex-1.0.0") for values a format marks with one.
class Value {
 public:
  using Storage = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
                               ValueBytes, ValueList, ValueMap>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool v) : v_(v) {}
  Value(int v) : v_(int64_t{v}) {}
  Value(int64_t v) : v_(v) {}
  Value(uint64_t v) : v_(v) {}
  Value(double v) : v_(v) {}
  Value(const char* v) : v_(std::string(v)) {}
  Value(std::string v) : v_(std::move(v)) {}
  Value(ValueBytes v) : v_(std::move(v)) {}
  Value(ValueList v) : v_(std::move(v)) {}
  Value(ValueMap v) : v_(std::move(v)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(v_);
  }
  /// The value as T; throws std::bad_variant_access when it is not one.
  template <typename T>
  const T& as() const {
    return std::get<T>(v_);
  }
  const Storage& storage() const { return v_; }

  /// The member `key` of a map, or nullptr (also for values that are not maps).
  const Value* find(std::string_view key) const;

  const std::string& tag() const { return tag_; }
  Value& with_tag(std::string tag) {
    tag_ = std::move(tag);
    return *this;
  }

  friend bool operator==(const Value& a, const Value& b);

 private:
  Storage v_;
  std::string tag_;
};

/// How deeply a format may nest the values it reads (lists and maps in lists and maps):
/// readers refuse deeper input, so the tools that walk values recursively stay bounded.
inline constexpr size_t kMaxValueDepth = 256;

/// Whether every text in `value` (strings, map keys, its tag) is UTF-8: a writer whose
/// metadata is JSON or YAML text (Zarr, ASDF, NDL) can carry it. Bytes (ValueBytes) are not
/// text and always pass.
bool value_is_utf8(const Value& value);

/// An attribute's value: a JSON-like tree, or a typed array.
using AttributeValue = std::variant<Value, NDArray>;

/// Attributes of a group or array, in the order the file gave them.
class Attributes {
 public:
  /// Sets `name` (replacing a value of that name, keeping its place).
  void set(std::string name, AttributeValue value);
  /// Sets `name` to `text` that the source stored as `stored`: fixed-length text (HDF5's
  /// fixed-length strings; netCDF's char attributes, NC_CHAR) or variable-length text of an
  /// encoding other than UTF-8 (HDF5's ASCII strings). Every reader sees text, as from set();
  /// a writer with typed attributes (HDF5) stores it as `stored` again rather than as a
  /// variable-length UTF-8 string, so a conversion keeps the type (h5py reads the two as
  /// bytes and str, ncdump shows the second as `string`).
  void set_text(std::string name, std::string text, DType stored);
  /// The type text attribute `name` was stored as (set_text), or nullptr; a later set() of
  /// the name forgets it.
  const DType* stored_text_type(std::string_view name) const;
  /// Removes attribute `name` (nothing when there is none), keeping the others' order.
  void erase(std::string_view name);
  /// The attribute `name`, or nullptr.
  const AttributeValue* find(std::string_view name) const;
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  /// Past this many attributes, names are found through `index_`: a group of 100,000
  /// attributes (an ASDF tree's root) is then built in linear time, while the millions of
  /// arrays with a few attributes each pay nothing for it.
  static constexpr size_t kIndexFrom = 16;
  std::vector<std::pair<std::string, AttributeValue>> items_;
  std::unordered_map<std::string, size_t> index_;  ///< name -> position, once indexed
  /// set_text's stored types, by name: few (most attributes have none), searched in order.
  std::vector<std::pair<std::string, DType>> text_types_;
};

/// Attribute names with one meaning across formats, so the same fact from different formats
/// meets in one place.
namespace well_known {
/// The names of an array's dimensions: a list with one string (or null) per dimension (Zarr
/// v3 `dimension_names`, NDL `dimcoords` names, HDF5 dimension scales' names).
inline constexpr const char* kDimensionNames = "dimension_names";
/// Paths of the arrays that hold each dimension's coordinates: a list of strings or nulls,
/// one per dimension (NDL `dimcoords`, HDF5 dimension scales).
inline constexpr const char* kDimensionCoordinates = "dimension_coordinates";
/// The value of elements never written (Zarr `fill_value`, HDF5 fill value, netCDF
/// `_FillValue`): a scalar Value, or a one-element NDArray of the array's dtype.
inline constexpr const char* kFillValue = "fill_value";
/// On a tree's root: the schema the file was written with, as JSON text (an Avro
/// container's writer schema; `ls --schema` prints it).
inline constexpr const char* kWriterSchema = "avro.schema";

/// Whether `name` is one of the model's own array attributes above (dimension names and
/// coordinates, fill value), which each writer expresses in its format's own way (Zarr's
/// dimension_names and fill_value, HDF5 dimension scales) and never as a user attribute.
bool is_model_attribute(const std::string& name);

/// Whether attribute `name` of the root of a tree read from `format` is that format's own
/// bookkeeping, not the user's data (ASDF's asdf_library and history, an Avro container's
/// avro.schema and avro.codec, the _NCProperties netCDF-4 leaves in its HDF5 files): a writer of
/// another format leaves it out, writing its own, and loses nothing.
bool is_bookkeeping(const std::string& format, const std::string& name);

/// An empty attribute (HDF5's null dataspace, h5py's `Empty`): a type and no value, not
/// even a null one. Held as a null Value tagged "dudley:empty:" and the type's numpy
/// typestr ("dudley:empty:<f4"), so that formats without such a thing see a null.
Value empty_value(const DType& type);
/// The type of an empty attribute made by empty_value; nullopt for any other value (and
/// for a tag whose typestr does not parse).
std::optional<DType> empty_type(const Value& value);
}  // namespace well_known

}  // namespace dudley::model
