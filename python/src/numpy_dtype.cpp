#include "numpy_dtype.hpp"

#include "dudley/core/error.hpp"

namespace py = pybind11;

namespace dudley::python {
namespace {

py::dtype build(const DType& type) {
  switch (type.kind()) {
    case DTypeKind::kCompound: {
      py::list names, formats, offsets;
      for (const DTypeField& f : type.fields()) {
        names.append(f.name);
        py::dtype field = build(*f.type);
        if (!f.shape.empty()) {
          field = py::dtype::from_args(py::make_tuple(field, py::cast(f.shape)));
        }
        formats.append(field);
        offsets.append(f.offset);
      }
      py::dict spec;
      spec["names"] = names;
      spec["formats"] = formats;
      spec["offsets"] = offsets;
      spec["itemsize"] = type.size();
      return py::dtype::from_args(spec);
    }
    case DTypeKind::kFixedArray:
      return py::dtype::from_args(py::make_tuple(build(type.base()), py::cast(type.array_shape())));
    case DTypeKind::kEnum:
      return build(type.base());
    default:
      return py::dtype(type.typestr());  // Error(kType) where numpy has no such type
  }
}

}  // namespace

py::dtype numpy_dtype(const DType& type) {
  return build(type.needs_swap() ? type.with_byte_order(native_byte_order()) : type);
}

py::dtype stored_numpy_dtype(const DType& type) {
  return build(type);
}

}  // namespace dudley::python
