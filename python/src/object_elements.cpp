#include "object_elements.hpp"

#include <cstring>
#include <string>

#include "dudley/core/vlen.hpp"
#include "numpy_dtype.hpp"
#include "value_objects.hpp"

namespace py = pybind11;

namespace dudley::python {
namespace {

py::object element_object(const DType& type, const std::byte* p);

// `count` elements of `type` from `p` as a numpy array of `shape` (a sub-array field, or the
// elements of a variable-length sequence).
py::object block_object(const DType& type, const std::vector<int64_t>& shape, const std::byte* p,
                        uint64_t count) {
  const py::dtype dt = numpy_dtype(type);
  if (!holds_objects(type)) {
    py::array out(dt, shape);
    if (count) std::memcpy(out.mutable_data(), p, count * type.size());
    return out;
  }
  py::array out(dt, shape);
  py::object flat = out.attr("reshape")(-1);
  for (uint64_t i = 0; i < count; ++i)
    flat[py::int_(i)] = element_object(type, p + i * type.size());
  return out;
}

py::object element_object(const DType& type, const std::byte* p) {
  switch (type.kind()) {
    case DTypeKind::kVLen: {
      VLenElement e;
      std::memcpy(&e, p, sizeof e);
      const DType& base = type.base();
      // ASCII strings are bytes, as h5py reads them (they are what it writes bytes objects
      // as), and so are Zarr's bytes, as zarr-python reads them; UTF-8 strings are str.
      if ((base.joins_units() && base.encoding() == TextEncoding::kAscii) ||
          type.is_bytes_objects()) {
        const std::string_view bytes = e.bytes(1);
        return py::bytes(bytes.data(), bytes.size());
      }
      if (base.joins_units() && base.encoding() == TextEncoding::kUtf8) {
        const std::string_view bytes = e.bytes(1);
        // Text that is not UTF-8 (a damaged ASCII string) stays bytes rather than failing.
        PyObject* s =
            PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), nullptr);
        if (s == nullptr) {
          PyErr_Clear();
          return py::bytes(bytes.data(), bytes.size());
        }
        return py::reinterpret_steal<py::object>(s);
      }
      return block_object(base, {static_cast<int64_t>(e.count)}, e.data, e.count);
    }
    case DTypeKind::kCompound: {
      py::list fields;
      for (const DTypeField& f : type.fields()) {
        uint64_t n = 1;
        for (int64_t d : f.shape) n *= static_cast<uint64_t>(d);
        if (f.shape.empty()) {
          fields.append(element_object(*f.type, p + f.offset));
        } else {
          fields.append(block_object(*f.type, f.shape, p + f.offset, n));
        }
      }
      return py::tuple(fields);
    }
    case DTypeKind::kFixedArray: {
      uint64_t n = 1;
      for (int64_t d : type.array_shape()) n *= static_cast<uint64_t>(d);
      return block_object(type.base(), type.array_shape(), p, n);
    }
    default: {
      // A plain element: numpy's scalar of it.
      py::array one(numpy_dtype(type), std::vector<int64_t>{});
      std::memcpy(one.mutable_data(), p, type.size());
      return one[py::tuple()];
    }
  }
}

}  // namespace

bool holds_objects(const DType& type) {
  return type.holds_vlen();
}

py::array objects_to_numpy(const NDArray& data, const py::dtype& dtype,
                           const std::vector<int64_t>& shape) {
  py::array out(dtype, shape);
  py::object flat = out.attr("reshape")(-1);
  // numpy expands a sub-array element type into the array's shape (h5py reads an HDF5 array
  // type so): such an element fills as many places of `flat` as its base has elements.
  const DType* unit = &data.dtype();
  uint64_t per_element = 1;
  while (unit->kind() == DTypeKind::kFixedArray) {
    for (int64_t d : unit->array_shape()) per_element *= static_cast<uint64_t>(d);
    unit = &unit->base();
  }
  uint64_t i = 0;
  data.for_each_element([&](const void* p) {
    const auto* bytes = static_cast<const std::byte*>(p);
    for (uint64_t k = 0; k < per_element; ++k)
      flat[py::int_(i++)] = element_object(*unit, bytes + k * unit->size());
  });
  return out;
}

py::array references_to_numpy(const NDArray& data, const model::ReferenceTable* references) {
  py::array out(py::dtype("O"), data.shape().dims());
  py::object flat = out.attr("reshape")(-1);
  uint64_t i = 0;
  data.for_each_element([&](const void* p) {
    uint64_t key = 0;
    std::memcpy(&key, p, sizeof key);  // the table's key, native order (sources write it so)
    const model::Value target = references ? references->find(key) : model::Value();
    flat[py::int_(i++)] = target.is_null() ? py::object(py::none()) : value_object(target);
  });
  return out;
}

}  // namespace dudley::python
