// NDL's `type` (a Datatype entity) to and from DType: the one place where NDL's type names
// meet the project's type system.
#pragma once

#include <string>

#include "dudley/core/dtype.hpp"
#include "dudley/text/yaml.hpp"

namespace dudley::ndl {

using yaml::YamlNode;
using yaml::YamlRef;

/// The DType an NDL `type` node declares. Numbers are in native byte order (a `storage:
/// endian` changes it later); `string` is a variable-length UTF-8 string. Throws
/// Error(kType) at the node's line for an unknown name or a malformed composite.
DType parse_type(const YamlNode& node, const std::string& path);

/// Whether NDL can state `type`; when it cannot, `why` says what it is (float16, a Dudley
/// pointer...).
bool expressible(const DType& type, std::string* why);

/// Appends the NDL spelling of `type` as the value of a `type:` key already written at
/// `indent` spaces: " float32\n", or "\n" and an indented mapping. `type` must be
/// expressible. Booleans are an enum of FALSE and TRUE over int8 and complex numbers a
/// compound of `r` and `i`, as h5py stores them.
void emit_type(std::string& out, const DType& type, int indent);

/// The DType NDL would read back for `type` (bools and complex numbers as emit_type
/// spells them, strings as variable-length UTF-8): what a described value is checked against.
DType as_ndl_type(const DType& type);

}  // namespace dudley::ndl
