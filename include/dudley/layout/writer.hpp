// Writing a Dudley file: a layout plus arrays from native memory -> the data file, with its
// canonical layout beside it (run.bin + run.dud).
//
//   Layout layout = parse_layout("!DUDLEY := S1[8]  N := i4  x = f8[N]").layout;
//   Writer w(layout, "run.bin");
//   w.write("/x", array);        // N is taken from the array's shape
//   w.commit();                  // run.bin and run.dud appear, complete, or not at all
//
// Parameters come from set_param() or from the shapes of the arrays written (a shape that
// contradicts a parameter is an error naming both). Addresses are computed by the binder
// from those values, exactly as a reader will compute them. Data is converted from native
// order to each item's declared order while it is written. Arrays not written read as zeros.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/ndarray.hpp"
#include "dudley/layout/layout.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::layout {

struct WriteOptions {
  /// Order of '|' (unprefixed) multi-byte types and of the !DUDLEY signature.
  ByteOrder order = native_byte_order();
  /// Make data and layout durable before they appear under their names.
  bool fsync = false;
  /// The data file does not hold its dynamic parameters (they take no bytes): a family whose
  /// parameters live only in its index [C23]. Readers then need the index (or --param).
  bool params_absent = false;
  /// Write NAME.dud beside data file NAME.EXT (canonical, `dudley check` passes on it).
  bool write_layout = true;
  /// Called as bytes are written (done, total): progress bars, and tests that interrupt.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

class Writer {
 public:
  /// Prepares `data_path` as described by `layout` (kept by reference: it must outlive the
  /// writer). Throws Error(kUsage) for constructs the writer cannot produce yet (counted
  /// arrays, heterogeneous arrays, pointees).
  Writer(const Layout& layout, std::string data_path, WriteOptions options = {});

  /// Sets a dynamic or fixed group parameter by path ("/N", "/g/M") or by a name that is
  /// unique in the layout. Throws Error(kUsage) for an unknown or ambiguous one, or for a
  /// fixed parameter given another value.
  void set_param(std::string_view name_or_path, int64_t value);

  /// Gives the data of the array at `path` (a data item; list items by index, "/L/0").
  /// The array is kept by reference (NDArray shares its storage) until commit(). Its shape
  /// sets the parameters of the item's dimensions that are not set yet. Throws
  /// Error(kUsage) naming the item for a path that is not a data item, a rank that does
  /// not match, or a dimension that contradicts a parameter.
  void write(std::string_view path, const NDArray& data);

  /// Like write(), for an array of another file (a model node): its data is read block by
  /// block during commit(), so memory stays bounded whatever the array's size.
  void write_from(std::string_view path, const model::Node& array);

  /// Resolves every parameter (each dynamic one must be known by now), places every item,
  /// writes the data file and its layout through temporary files renamed into place.
  /// Throws Error naming the problem; nothing appears under the final names then, and an
  /// existing file of that name is untouched. Returns the data file's size.
  uint64_t commit();

  /// True once commit() succeeded.
  bool committed() const { return committed_; }
  /// Every dynamic group parameter's value (complete after commit()), by declaration.
  const std::map<ParamId, int64_t>& param_values() const { return params_; }

 private:
  ParamId find_param(std::string_view name_or_path) const;
  void set_param_value(ParamId p, int64_t value, const std::string& why);

  const Layout& layout_;
  std::string path_;
  WriteOptions options_;
  std::map<ParamId, int64_t> params_;
  /// What to write into one item: an array in memory, or a source read block by block.
  struct Input {
    NodeId node = kNone;
    NDArray data;
    std::shared_ptr<model::ArraySource> source;
    DType dtype;
    std::vector<int64_t> shape;
  };
  NodeId check_shape(std::string_view path, const std::vector<int64_t>& shape);
  std::vector<Input> inputs_;
  bool committed_ = false;
};

/// The file a layout goes to beside data file `data_path`: NAME.EXT -> NAME.dud.
std::string layout_path_for(const std::string& data_path);

}  // namespace dudley::layout
