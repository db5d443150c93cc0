// Model values as Python objects (value_objects.hpp).
#include "value_objects.hpp"

#include <cmath>
#include <type_traits>
#include <variant>

#include "dudley/core/text.hpp"
#include "text_objects.hpp"

namespace dudley::python {
// Recursive: model values nest at most kMaxValueDepth deep (readers refuse deeper ones).
py::object value_object(const model::Value& value) {
  py::object out = std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, bool>) {
          return py::bool_(v);
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>) {
          return py::int_(v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) return py::str("NaN");
          if (std::isinf(v)) return py::str(v > 0 ? "Infinity" : "-Infinity");
          return py::float_(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return escaped_str(v);
        } else if constexpr (std::is_same_v<T, model::ValueBytes>) {
          py::dict bytes;
          bytes["base64"] = py::str(encode_base64(v));
          return bytes;
        } else if constexpr (std::is_same_v<T, model::ValueList>) {
          py::list list;
          for (const model::Value& item : v) list.append(value_object(item));
          return list;
        } else {
          py::dict map;
          for (const auto& [key, item] : v) map[escaped_str(key)] = value_object(item);
          return map;
        }
      },
      value.storage());
  if (value.tag().empty()) return out;
  py::dict tagged;
  tagged["tag"] = escaped_str(value.tag());
  tagged["value"] = out;
  return tagged;
}

}  // namespace dudley::python
