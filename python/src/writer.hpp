// dudley.Writer and dudley.FamilyWriter's native halves: the C++ writer (layout plus numpy
// arrays -> data file and its layout, committed atomically) bound as it is. The Python
// classes in python/dudley/_writer.py add what Python users expect on top (w["/x"] = a,
// casting to the declared type, context managers).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/layout/family/family.hpp"
#include "dudley/layout/write/writer.hpp"

namespace dudley::python {

namespace py = pybind11;

/// Options both writers take, as Python spells them.
struct WriterOptions {
  std::optional<std::string> order;  ///< "<", ">", "little", "big"; None: native
  bool embed_layout = false;
  bool fsync = false;
};

/// A writer of one data file: owns its layout (and writer), or is a family's member writer.
class NativeWriter {
 public:
  /// A writer of `path` described by `layout` (text, or a .dud path).
  NativeWriter(const std::string& layout, const std::string& path, const WriterOptions& options);
  /// A family member's writer, which `family` owns (kept alive by this object).
  NativeWriter(std::shared_ptr<void> family, layout::Writer* member);

  void set_param(const std::string& name, int64_t value);
  /// (numpy dtype or None, shape tuple or None): what the layout declares at `path`.
  py::tuple declared(const std::string& path);
  void write(const std::string& path, const py::array& data);
  /// Writes `data` into the elements `index` (a numpy basic index) selects of the item at
  /// `path`, whose shape must be known by now; `data` has the selection's shape.
  void write_region(const std::string& path, const py::array& data, py::handle index);
  void write_instances(const std::string& path, const py::list& arrays);
  void write_pointee(uint64_t key, const py::array& data);
  std::string append(const std::string& list_path, const py::array& data);
  /// Commits with the GIL released; returns the data file's size.
  uint64_t commit();
  bool committed() const { return writer_->committed(); }
  /// Paths of the data items given no data yet (they would be written as zeros).
  std::vector<std::string> unwritten() const { return writer_->unwritten(); }
  /// The layout as written (the given one plus appended items), canonical text.
  std::string layout_text() const;

 private:
  std::shared_ptr<void> owner_;  ///< the layout and writer, or the family
  layout::Writer* writer_ = nullptr;
};

/// A family of data files of one !TEMPLATE layout, and its index.
class NativeFamilyWriter {
 public:
  NativeFamilyWriter(const std::string& layout, const std::string& stem,
                     const WriterOptions& options, bool params_in_files);
  /// The next member's writer.
  NativeWriter add();
  /// Writes the family's layout and index; returns the index's path.
  std::string finish();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// The byte order a Python argument names ("<", ">", "=", "little", "big", "native").
ByteOrder order_named(const std::string& order);

}  // namespace dudley::python
