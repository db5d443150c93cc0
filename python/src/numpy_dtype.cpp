#include "numpy_dtype.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <vector>

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
        std::vector<int64_t> shape = f.shape;
        const DType& t = *f.type;
        // A field of Dudley text (`name = S1[8]` in a struct) is strings, as numpy's S8.
        if (t.kind() == DTypeKind::kText && !t.is_string() && t.text_length() == 1 &&
            !shape.empty() && t.encoding() != TextEncoding::kUtf16) {
          const std::string n = std::to_string(std::max<int64_t>(shape.back(), 1));
          field = py::dtype((t.encoding() == TextEncoding::kUtf32
                                 ? std::string(t.byte_order() == ByteOrder::kBig ? ">U" : "<U")
                                 : std::string("S")) +
                            n);
          shape.pop_back();
        }
        if (!shape.empty()) {
          field = py::dtype::from_args(py::make_tuple(field, py::cast(shape)));
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
    case DTypeKind::kVLen:  // a Python object each (object_elements.hpp)
      return py::dtype("O");
    case DTypeKind::kText:
      // UTF-8 text has no numpy type: its bytes, as h5py gives fixed-length UTF-8 strings.
      if (type.encoding() == TextEncoding::kUtf8) {
        return py::dtype("S" + std::to_string(type.text_length()));
      }
      return py::dtype(type.typestr());
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

DType dtype_from_numpy(const py::dtype& dtype, int depth) {
  // numpy nests structured dtypes as deeply as it is asked to; a bound keeps this bounded.
  if (depth > 64) throw Error(ErrorCategory::kLimit, "a numpy dtype nested more than 64 deep");
  py::object fields = dtype.attr("fields");
  if (!fields.is_none()) {
    std::vector<DTypeField> out;
    for (py::handle name : dtype.attr("names")) {
      py::tuple field = fields[name];
      py::dtype type = field[0].cast<py::dtype>();
      DTypeField f;
      f.name = name.cast<std::string>();
      f.offset = field[1].cast<uint64_t>();
      py::object sub = type.attr("subdtype");
      if (!sub.is_none()) {
        type = sub.cast<py::tuple>()[0].cast<py::dtype>();
        f.shape = sub.cast<py::tuple>()[1].cast<std::vector<int64_t>>();
      }
      f.type = std::make_shared<const DType>(dtype_from_numpy(type, depth + 1));
      out.push_back(std::move(f));
    }
    return DType::compound(std::move(out), static_cast<uint64_t>(dtype.itemsize()));
  }
  py::object sub = dtype.attr("subdtype");
  if (!sub.is_none()) {
    return DType::fixed_array(
        dtype_from_numpy(sub.cast<py::tuple>()[0].cast<py::dtype>(), depth + 1),
        sub.cast<py::tuple>()[1].cast<std::vector<int64_t>>());
  }
  if (dtype.kind() == 'O') {
    throw Error(ErrorCategory::kType,
                "numpy dtype " + py::str(py::handle(dtype)).cast<std::string>() +
                    " has no dudley type " +
                    "(give numbers, booleans, times, fixed-size text or structured arrays of "
                    "them)");
  }
  const std::string typestr = py::str(dtype.attr("str")).cast<std::string>();
  // numpy's S<n> and U<n> hold one string per element (not n elements of text).
  if (dtype.kind() == 'S') {
    return DType::string(TextEncoding::kAscii, static_cast<uint64_t>(dtype.itemsize()));
  }
  if (dtype.kind() == 'U') {
    return DType::string(TextEncoding::kUtf32, static_cast<uint64_t>(dtype.itemsize()) / 4,
                         typestr[0] == '>' ? ByteOrder::kBig : ByteOrder::kLittle);
  }
  return DType::from_typestr(typestr);
}

}  // namespace dudley::python
