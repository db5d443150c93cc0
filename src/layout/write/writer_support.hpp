// Pieces shared by the two halves of the Writer (writer.cpp: taking input; writer_commit.cpp:
// placing and writing it).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

/// What the writer knows of one declared dimension's parameter while matching a shape.
struct DimValue {
  enum State {
    kKnown,      ///< `value` holds it
    kUnknown,    ///< not set yet: `assign` sets it from the shape
    kUnchecked,  ///< decided elsewhere (a free name bound where the struct is used)
  };
  State state = kUnchecked;
  int64_t value = 0;
  std::string name;  ///< of the parameter, for messages (kUnknown)
  std::function<void(int64_t value, const std::string& why)> assign;

  static DimValue known(int64_t v) { return {kKnown, v, {}, {}}; }
  static DimValue unchecked() { return {kUnchecked, 0, {}, {}}; }
};
using DimResolver = std::function<DimValue(const Dim&)>;

/// Matches an array's shape against declared dimensions [C14], left to right: dimensions
/// whose parameter is not known yet get the value the shape needs; known ones must agree.
/// Throws Error(kUsage) naming `what` and the dimension otherwise.
void match_dims(std::span<const Dim> dims, const std::vector<int64_t>& shape,
                const std::string& what, const DimResolver& resolve);

/// The shape an array of `type` has in a layout: strings of N code units add a last
/// dimension N (`S1[..., N]`), except that an array (rank > 0) of one-unit strings is taken
/// as an array of code units.
std::vector<int64_t> element_shape(const DType& type, const std::vector<int64_t>& shape);

/// "/g/N" for a group parameter, the bare name for a struct or block parameter.
std::string param_path(const Layout& l, ParamId p);

/// True when instances of `ref` differ in size (parameters stored per instance, or a
/// heterogeneous array's element body).
bool varying_type(const Layout& l, const TypeRef& ref, int depth = 0);

}  // namespace dudley::layout
