// Values of NDL entities (`value:` of ndarrays, dimcoords and attributes, `fillvalue`) to
// and from arrays of the model, by the rules of ndl-resolutions.md (P7).
#pragma once

#include <string>
#include <vector>

#include "datatype.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::ndl {

/// The array `node` states for an entity of `type` and `shape`: nested sequences in C order
/// (a plain scalar for shape []). References are added to `refs`. Memory is checked against
/// `byte_budget` (and taken from it) before anything is allocated, so a few bytes of text cannot
/// claim gigabytes through a large opaque or array type. Throws Error(kData) at the offending node
/// for a value that does not fit its type or shape.
NDArray parse_value(const YamlNode& node, const DType& type, const std::vector<int64_t>& shape,
                    const std::string& path, model::ReferenceTable& refs, uint64_t& byte_budget);

/// A scalar for a spelling the short form of an attribute allows, or why it is not one.
/// Strings are variable-length UTF-8, integers int64 (uint64 above INT64_MAX), floats float64.
NDArray short_form_value(const YamlNode& node, const std::string& path);

/// Writes NDL values: the elements of arrays of any model type (native byte order), as NDL
/// reads them back (as_ndl_type).
class ValueEmitter {
 public:
  /// `refs` says what reference keys point to (nullptr: every reference is null).
  explicit ValueEmitter(const model::ReferenceTable* refs) : refs_(refs) {}
  /// Appends the value of `array` (native byte order, any strides): a plain scalar for a
  /// 0-d array, else flow sequences, one innermost row a line, continuation lines at
  /// `indent` spaces.
  void array(std::string& out, const NDArray& array, int indent) const;
  /// Appends one element of `type` at `p`.
  void element(std::string& out, const std::byte* p, const DType& type) const;

 private:
  const model::ReferenceTable* refs_;
};

/// Appends `value` in YAML flow style (`[1, 2]`, `{a: x}`), strings quoted as flow_string
/// does: reference targets, filter parameters.
void flow_yaml(std::string& out, const model::Value& value);

/// A string as a YAML scalar that may stand inside a flow collection (quoted when a plain
/// spelling would read as something else or hold a flow indicator).
std::string flow_string(const std::string& s);

}  // namespace dudley::ndl
