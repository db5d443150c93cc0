// The pieces of dudley._native, one per group of Python classes (module.cpp calls each).
#pragma once

#include <pybind11/pybind11.h>

#include "dudley/core/error.hpp"

namespace dudley::python {

/// The dudley.Error (of the subclass of its category) that `e` is raised as, not raised:
/// its message with secrets redacted, `category`, `path`, `line`, `column`, `offset`, `lost`.
pybind11::object error_object(const Error& e);

/// dudley.Error and a subclass per category (ParseError, FileError, ...), and the
/// translator that raises them for C++ errors.
void bind_errors(pybind11::module_& m);
/// Group, File, Array; open, _save, _reopen_native.
void bind_nodes(pybind11::module_& m);
/// Diagnostic, check, fmt.
void bind_layout(pybind11::module_& m);
/// Family, open_family, _family_native.
void bind_family(pybind11::module_& m);
/// _Writer, _FamilyWriter, _make_writer, _make_family_writer.
void bind_writer(pybind11::module_& m);

}  // namespace dudley::python
