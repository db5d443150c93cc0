// Reading a file family: one layout parsed and planned once, many members bound with it,
// and one item read from every member into the rows of one result. The command line
// (`dump --family`), the Python module (`Family.read`) and the C++ user share this.
//
//   FamilyReader family(std::make_shared<const Layout>(load_layout("run.dud")),
//                       FamilyReader::members_of(family_members("run_*.bin"), {}));
//   const NodeId v = family.layout().find("/v");
//   const FamilyItem item = family.item(v);          // type and shape, from member 0
//   std::vector<std::byte> rows(family.size() * item.row_bytes(Hyperslab::all(item.shape)));
//   family.read_rows(v, item, Hyperslab::all(item.shape), rows.data());
//   NDArray last = family.read(family.size() - 1, v);  // one member, whatever its shape
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/bind_plan.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

/// One member of a family: its data file and how it is bound (its own parameter values, as
/// a family index gives them, or the options every member shares).
struct FamilyMemberFile {
  std::string path;
  BindOptions bind;
};

/// The type and shape one item has in every member of a family (those of member 0).
struct FamilyItem {
  DType dtype;                 ///< byte order resolved
  std::vector<int64_t> shape;  ///< the item's shape in one member

  /// Bytes one member's selection `slab` takes in a result row (native order, C order).
  uint64_t row_bytes(const Hyperslab& slab) const;
};

/// One member bound to its file: what a caller needs to read any item of it.
struct BoundMember {
  std::shared_ptr<io::ByteSource> source;
  std::unique_ptr<Binding> binding;  ///< refers to the reader's plan: the reader outlives it
};

class FamilyReader {
 public:
  /// A family of `members` read with `layout`, planned once. Throws Error(kUsage) when the
  /// members differ in BindOptions::params_absent (one plan serves one setting) or there
  /// are none.
  FamilyReader(std::shared_ptr<const Layout> layout, std::vector<FamilyMemberFile> members);
  FamilyReader(const FamilyReader&) = delete;
  FamilyReader& operator=(const FamilyReader&) = delete;

  /// The family a family index describes (read_family_index): its layout, its members and
  /// each member's parameters. Throws Error naming the index when it is not one.
  static FamilyReader from_index(const std::string& index_path);

  /// Members for `files` that all share `bind`.
  static std::vector<FamilyMemberFile> members_of(const std::vector<std::string>& files,
                                                  const BindOptions& bind);

  size_t size() const { return members_.size(); }
  const Layout& layout() const { return *layout_; }
  const BindPlan& plan() const { return *plan_; }
  const FamilyMemberFile& member(size_t i) const { return members_.at(i); }

  /// Member `i` bound: its file opened (Error(kIo) naming it when it cannot be) and, for a
  /// layout with a !DUDLEY signature, the signature read.
  BoundMember bind(size_t i) const;

  /// Item `item` of member `i`, whole, in native byte order: members whose shapes differ
  /// (a parameter that changes from file to file) are read one by one this way. Throws
  /// Error naming the member's file and the item on a failed open, bind or read.
  NDArray read(size_t i, NodeId item) const;

  /// The type and shape `item` has in member 0, or nullopt when the item is not one array
  /// per member (not a data item, or one whose instances differ in size). Throws Error
  /// naming member 0 when it cannot be bound or does not hold the item.
  std::optional<FamilyItem> item(NodeId item) const;

  /// Reads selection `slab` of `item` from every member into consecutive rows of `out`
  /// (each row.row_bytes(slab) bytes, native byte order), member after member. Stops at
  /// the first member whose item differs from `expected` in type or shape and returns its
  /// index (its row and those after it are not written); nullopt when every row is read.
  /// Throws Error naming the member's file on a failed open, bind or read.
  std::optional<size_t> read_rows(NodeId item, const FamilyItem& expected, const Hyperslab& slab,
                                  void* out) const;

 private:
  std::shared_ptr<const Layout> layout_;
  std::unique_ptr<BindPlan> plan_;
  std::vector<FamilyMemberFile> members_;
};

}  // namespace dudley::layout
