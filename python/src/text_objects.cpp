// Text read from files as Python objects (text_objects.hpp).
#include "text_objects.hpp"

#include "dudley/core/text.hpp"

namespace dudley::python {

py::object name_object(std::string_view name) {
  if (is_utf8(name)) return py::str(name.data(), name.size());
  return py::bytes(name.data(), name.size());
}

std::string name_bytes(py::handle name, const char* what) {
  if (py::isinstance<py::bytes>(name)) return name.cast<std::string>();
  if (py::isinstance<py::str>(name)) {
    // Surrogate escapes give back the bytes they stand for, as os.fsencode does: a name
    // taken from os.listdir or glob, or one h5py 4 gives, finds its member.
    PyObject* utf8 = PyUnicode_AsEncodedString(name.ptr(), "utf-8", "surrogateescape");
    if (utf8 == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::bytes>(utf8).cast<std::string>();
  }
  throw py::type_error(std::string(what) + " must be str or bytes, not " +
                       py::str(py::type::handle_of(name).attr("__name__")).cast<std::string>());
}

py::list name_list(const std::vector<std::string>& names) {
  py::list out;
  for (const std::string& name : names) out.append(name_object(name));
  return out;
}

namespace {

// `text` decoded as UTF-8, what is not UTF-8 handled as Python's `errors` handler says.
py::str decoded(std::string_view text, const char* errors) {
  if (is_utf8(text)) return py::str(text.data(), text.size());
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), errors);
  if (s == nullptr) throw py::error_already_set();  // only when out of memory
  return py::reinterpret_steal<py::str>(s);
}

}  // namespace

py::str readable_str(std::string_view text) {
  return decoded(text, "replace");
}

py::str escaped_str(std::string_view text) {
  return decoded(text, "surrogateescape");
}

std::string readable(std::string_view text) {
  if (is_utf8(text)) return std::string(text);
  return readable_str(text).cast<std::string>();
}

py::str path_str(std::string_view path) {
  PyObject* s = PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size()));
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

}  // namespace dudley::python
