// Text read from files as Python objects. Names and attributes of HDF5, netCDF and numpy's S
// type can be any bytes (Latin-1 "caf\xe9" in old files), and pybind11 converts std::string
// to str strictly: one such name made list(f) raise UnicodeDecodeError. These helpers say
// what each kind of text becomes instead, so no listing, repr or error fails on it.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

namespace dudley::python {

namespace py = pybind11;

/// A member or attribute name, or a path in a file, as h5py gives it: str when it is UTF-8,
/// bytes when it is not (so it can be given back to f[...] unchanged).
py::object name_object(std::string_view name);
/// The bytes of a name given from Python: a str as UTF-8 (surrogate escapes as the bytes
/// they stand for), bytes as they are (h5py takes both); TypeError naming `what` for
/// anything else, UnicodeEncodeError for a surrogate that stands for no byte.
std::string name_bytes(py::handle name, const char* what);
/// name_object of each name, as a list.
py::list name_list(const std::vector<std::string>& names);
/// Text for people (a repr, a message, a doc): str, with U+FFFD for each byte sequence that
/// is not UTF-8, as the command's JSON output prints it. Never raises.
py::str readable_str(std::string_view text);
/// Text kept whole (attribute values): str, with bytes that are not UTF-8 as surrogate
/// escapes (PEP 383), as h5py gives such text; s.encode("utf-8", "surrogateescape") gives
/// the bytes back.
py::str escaped_str(std::string_view text);
/// `text` as valid UTF-8 (U+FFFD for what is not): for messages built in C++ that pybind11
/// turns into str strictly (py::key_error, py::type_error, returned std::string).
std::string readable(std::string_view text);
/// A file system path as Python's os.fsdecode gives it (undecodable bytes as surrogate
/// escapes, PEP 383), so open(path) reaches the same file.
py::str path_str(std::string_view path);

}  // namespace dudley::python
