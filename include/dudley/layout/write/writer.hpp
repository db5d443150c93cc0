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
// Every construct of the language can be written: plain arrays whole or by region, structs,
// counted and heterogeneous arrays (write_instances), pointees, and items appended to lists.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/layout/syntax/layout.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::io {
class AtomicFile;
}  // namespace dudley::io

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
  /// Also append the layout to the data file's end with a trailer, so the one file is
  /// self-describing (docs/embedded-layout.md).
  bool embed_layout = false;
  /// The layout is shared by many files (a family's STEM.dud): append(), which would give
  /// this file a layout of its own, is refused.
  bool shared_layout = false;
  /// The layout is the writer's to arrange (one made for a converted tree, not the user's):
  /// a large array copied unchanged from another file is placed at the same offset within
  /// a page as in that file (a `!@` line before it), which lets the kernel copy it page by
  /// page, about 1.4 times as fast, for at most 4095 bytes of padding.
  bool align_copies = false;
  /// Called as bytes are written (done, total): progress bars, and tests that interrupt.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct DimValue;  // writer_support.hpp
struct BindOptions;
class Binding;

/// One instance of an item whose instances differ in size (a counted array such as
/// `text = string` with `string := { n := u4  = S1[n] }`, a struct with parameters stored
/// in each instance, or an element of a heterogeneous array `var = PB{ ... }`).
struct Instance {
  /// The members' arrays by member name; "" names a typedef's anonymous member. Members not
  /// given read as zeros. Their shapes set the instance's parameters.
  std::map<std::string, NDArray, std::less<>> members;
  /// Parameter values of the instance (its own, or its parameter-block row's) by name, for
  /// parameters no member shape sets.
  std::map<std::string, int64_t, std::less<>> params;
  /// Members whose own instances differ in size (`names = string[k]` inside a struct): their
  /// instances by member name. Their number sets such a member's one unknown dimension.
  std::map<std::string, std::vector<Instance>, std::less<>> nested;
};

class Writer {
 public:
  /// Prepares `data_path` as described by `layout` (kept by reference: it must outlive the
  /// writer). Throws Error(kSemantic) for a !TEMPLATE that breaks its rules [C22] and
  /// Error(kUsage) for a layout whose byte order no reader could know.
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

  /// Gives the data of a region of the array at `path`: `data` has the region's shape
  /// (count per dimension, or region.result_shape()) and lands at `region.start` with
  /// `region.stride` (empty: 1; negative: backwards, as numpy's `x[::-1] = data`).
  /// Regions of one item may be given by several calls (blocks of a domain decomposition,
  /// rows of a time series); later ones win where they overlap. Sets no parameters: the
  /// item's shape must be known by commit(), which checks that the region fits it.
  void write(std::string_view path, const NDArray& data, const Hyperslab& region);

  /// Like write(), for an array of another file (a model node): its data is read block by
  /// block during commit(), so memory stays bounded whatever the array's size.
  void write_from(std::string_view path, const model::Node& array);

  /// Gives every instance of an item whose instances differ in size, in C order. An item
  /// with one dimension set by a parameter not set yet gets it from the number of
  /// instances. Each instance's parameters come from its members' shapes or its `params`;
  /// instances nested in a member come in `nested`, to any depth. Throws Error(kUsage) for an
  /// item without such instances, an unknown member or parameter, or a shape that
  /// contradicts a parameter.
  void write_instances(std::string_view path, std::vector<Instance> instances);
  /// The same for a typedef'd counted array (`text = string`): one array per instance.
  void write_instances(std::string_view path, const std::vector<NDArray>& arrays);

  /// Gives the data of the pointee declared with `key` [C19]. Its shape sets parameters
  /// like write(). Pointers to it are ordinary data items holding `key` (as p4/p8, or
  /// unsigned integers of the same size).
  void write_pointee(uint64_t key, const NDArray& data);

  /// Appends an item holding `data` to the named list at `list_path` (a time step, a
  /// record): the layout gains `list = [ = TYPE[SHAPE] ]` at its end, so the item lies
  /// after everything else. Returns the new item's path ("/history/3"). The element type
  /// must be a primitive Dudley type (numbers, bool, text, pointers). Throws Error(kUsage)
  /// for a path that is not a named list.
  std::string append(std::string_view list_path, const NDArray& data);

  /// Resolves every parameter (each dynamic one must be known by now), places every item,
  /// writes the data file and its layout through temporary files renamed into place.
  /// Throws Error naming the problem; nothing appears under the final names then, and an
  /// existing file of that name is untouched. Returns the data file's size.
  uint64_t commit();

  /// What the layout declares for the data item at `path`, as far as the writer knows it
  /// before commit(): a binding that converts its arrays to the item's type, or turns a
  /// numpy-style index into a region, asks this first.
  struct Declared {
    /// The element type of an item of a primitive type, in the order it is written;
    /// nullopt for items of a struct or typedef type.
    std::optional<DType> dtype;
    /// The item's shape from the parameters set or taken from shapes so far (a text item's
    /// code units included, as write() expects them); nullopt while one is unknown.
    std::optional<std::vector<int64_t>> shape;
  };
  /// Throws Error(kUsage) for a path that is not a data item of the layout.
  Declared declared(std::string_view path);

  /// The paths of the layout's data items given no data so far (by write(), a region,
  /// write_instances(), write_pointee() or append()): commit() writes them as zeros, so a
  /// binding warns about them first, or refuses to commit (Python's `strict=True`).
  std::vector<std::string> unwritten() const;

  /// True once commit() succeeded.
  bool committed() const { return committed_; }
  /// Every dynamic group parameter's value (complete after commit()), by declaration.
  const std::map<ParamId, int64_t>& param_values() const { return params_; }
  /// The layout written: the one given, plus the items append() added.
  const Layout& layout() const { return *layout_; }

 private:
  /// The node at `path` (Layout::find walks list items one by one; a converted file may
  /// have a million): all paths are indexed on first use.
  NodeId node_at(std::string_view path);
  std::unordered_map<std::string, NodeId> paths_;

  ParamId find_param(std::string_view name_or_path) const;
  void set_param_value(ParamId p, int64_t value, const std::string& why);
  NodeId check_shape(std::string_view path, const std::vector<int64_t>& shape);
  DimValue group_dim(const Dim& d);

  const Layout* layout_;
  std::unique_ptr<Layout> own_layout_;  ///< a copy, made by the first append()
  uint32_t appended_from_ = 0;          ///< statements from here on are appended items
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
    std::optional<Hyperslab> region;  ///< write() of a region
    uint32_t pointee = kNone;         ///< write_pointee(): index into Layout::pointees
  };
  std::vector<Input> inputs_;
  /// write_instances(): per item, each instance's members, and the parameter values of every
  /// instance by its path (BindOptions::instance_params).
  struct InstanceInput {
    std::vector<Instance> instances;
    std::map<std::vector<uint64_t>, std::map<ParamId, int64_t>> params;
  };
  // commit()'s phases, in order (writer_commit.cpp): parameters checked, the layout bound to
  // zeros as a reader will bind the file, appended items placed last, every piece and array
  // planned and checked against its place, then everything written.
  struct Plan;
  void check_params() const;
  BindOptions planning_options() const;
  void place_appended(std::unique_ptr<Binding>& binding, const BindOptions& bind);
  void plan_small(Binding& binding, Plan& plan) const;
  void plan_arrays(Binding& binding, Plan& plan) const;
  void plan_instances(Binding& binding, Plan& plan) const;
  uint64_t write_planned(const Plan& plan);
  void write_arrays(io::AtomicFile& file, const Plan& plan, uint64_t total) const;
  // commit()'s step for WriteOptions::align_copies: inserts `!@` cursors before large
  // arrays copied from other files and rebinds; leaves the layout as it was if the bound
  // addresses are not the ones planned.
  void align_copies(std::unique_ptr<Binding>& binding, const BindOptions& bind);
  void collect_instance(NodeId item, TypeId type, const Instance& instance,
                        const std::vector<uint64_t>& path, const std::string& what,
                        InstanceInput& input);
  std::map<NodeId, InstanceInput> instance_inputs_;
  bool committed_ = false;
};

/// The file a layout goes to beside data file `data_path`: NAME.EXT -> NAME.dud.
std::string layout_path_for(const std::string& data_path);

}  // namespace dudley::layout
