// Model values (attributes, codecs, fill values) as Python objects.
#pragma once

#include <pybind11/pybind11.h>

#include "dudley/model/value.hpp"

namespace dudley::python {

namespace py = pybind11;

/// `value` as Python objects, as json.loads reads `dump --json`'s text of it (None, bool,
/// int, float, str, list, dict; NaN and infinities as "NaN", "Infinity", "-Infinity"; bytes
/// as {"base64": ...}; a tagged value as {"tag": ..., "value": ...}), except that text that
/// is not UTF-8 keeps its bytes as surrogate escapes (PEP 383), as h5py gives such text:
/// s.encode("utf-8", "surrogateescape") is what the file holds.
py::object value_object(const model::Value& value);

}  // namespace dudley::python
