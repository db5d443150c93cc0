// dudley.Error and its subclasses, one per error category, and the translation of C++
// errors into them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

#include "dudley/core/error.hpp"
#include "dudley/format.hpp"
#include "dudley/io/redact.hpp"
#include "text_objects.hpp"

#include "bindings.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace dudley::python {
namespace {

// dudley's exception class of each category (set by bind_errors).
std::map<ErrorCategory, PyObject*>& classes_by_category() {
  static std::map<ErrorCategory, PyObject*> classes;
  return classes;
}

}  // namespace

py::object error_object(const Error& e) {
  PyObject* cls = classes_by_category().at(e.category());
  // A LossError says every item it would lose: in the message, and as `lost`.
  const auto* loss = dynamic_cast<const LossError*>(&e);
  // A message may quote a URL a format named its file by: never its secrets (a
  // presigned signature, user:password@), in Python as on the command line.
  std::string text = io::redacted_text(loss ? e.report() : std::string(e.what()));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  py::object exc = py::handle(cls)(readable_str(text));
  py::list lost;
  if (loss)
    for (const std::string& item : loss->items())
      lost.append(readable_str(io::redacted_text(item)));
  exc.attr("lost") = lost;
  const Location& at = e.location();
  exc.attr("category") = std::string(to_string(e.category()));
  exc.attr("path") =
      at.path.empty() ? py::object(py::none()) : py::object(path_str(io::redacted_text(at.path)));
  exc.attr("line") = at.line ? py::cast(at.line) : py::none();
  exc.attr("column") = at.column ? py::cast(at.column) : py::none();
  exc.attr("offset") = at.byte_offset ? py::cast(*at.byte_offset) : py::none();
  return exc;
}

void bind_errors(py::module_& m) {
  // dudley.Error, and a subclass for each category, some also the builtin a Python user
  // would catch (FileError is an OSError, UsageError a ValueError).
  // The classes live as long as the interpreter: held as leaked references, not objects
  // whose destructors would run after it is gone.
  static PyObject* error = py::exception<Error>(m, "Error").inc_ref().ptr();
  std::map<ErrorCategory, PyObject*>& by_category = classes_by_category();
  auto subclass = [&](ErrorCategory category, const char* name, const char* builtin) {
    py::handle base(error);
    py::tuple bases =
        builtin ? py::tuple(py::make_tuple(base, py::module_::import("builtins").attr(builtin)))
                : py::tuple(py::make_tuple(base));
    const std::string qualified = std::string("dudley.") + name;
    PyObject* cls = PyErr_NewException(qualified.c_str(), bases.ptr(), nullptr);
    if (cls == nullptr) throw py::error_already_set();
    m.attr(name) = py::handle(cls);
    by_category[category] = cls;
  };
  subclass(ErrorCategory::kSyntax, "ParseError", nullptr);
  subclass(ErrorCategory::kSemantic, "SemanticError", nullptr);
  subclass(ErrorCategory::kType, "DataTypeError", nullptr);
  subclass(ErrorCategory::kData, "DataError", nullptr);
  subclass(ErrorCategory::kIo, "FileError", "OSError");
  subclass(ErrorCategory::kUsage, "UsageError", "ValueError");
  subclass(ErrorCategory::kLimit, "LimitError", nullptr);
  subclass(ErrorCategory::kLoss, "LossError", nullptr);
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11 takes this signature
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = classes_by_category().at(e.category());
      py::object exc = error_object(e);
      PyErr_SetObject(cls, exc.ptr());
    }
  });
}

}  // namespace dudley::python
