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
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/io/batch_io.hpp"
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

/// A member bound as part of a batch (FamilyReader::bind_batch): bound, or the Error its
/// bind(i) throws.
struct BatchMember {
  BoundMember bound;
  std::exception_ptr error;  ///< set when the member could not be opened or bound
};

/// What every member of a batch reads in advance, learned from member 0: the bytes its
/// binding read (parameters, a signature) and the items to be read.
struct MemberBatchPlan {
  std::vector<NodeId> items;
  uint64_t head_offset = 0;  ///< the range member 0's binding read, read from each member
  uint64_t head_bytes = 0;   ///< 0: nothing read ahead (its binding read nothing, or too much)
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

  /// The batch plan for reading `items` of many members: member 0 bound once, its reads
  /// watched. Throws Error as bind(0) does.
  MemberBatchPlan batch_plan(std::vector<NodeId> items) const;

  /// Members [first, first + count) bound at once: their files opened, the range `plan`
  /// names and the bytes of its items (those of at most kBatchItemBytes) read, each step in
  /// one batch through `io`, so that binding, locating and reading the items then make no
  /// system call. A member that cannot be opened or bound holds the Error bind(i) throws.
  std::vector<BatchMember> bind_batch(const MemberBatchPlan& plan, size_t first, size_t count,
                                      io::BatchIo& io) const;

  /// Items larger than this are read when asked, not in the batch (memory stays bounded).
  static constexpr uint64_t kBatchItemBytes = uint64_t{256} << 10;

  /// Reads selection `slab` of `item` from every member into consecutive rows of `out`
  /// (each row.row_bytes(slab) bytes, native byte order). Many members are read at once:
  /// batches of opens and reads in flight (io::BatchIo: io_uring where the kernel has it),
  /// on as many threads as there are cores. Returns the first member whose item differs
  /// from `expected` in type or shape (its row and those after it may or may not be
  /// written); nullopt when every row is read. Throws the Error of the first member, in
  /// member order, that could not be opened, bound or read, naming its file; a member
  /// before one that differs is never skipped.
  std::optional<size_t> read_rows(NodeId item, const FamilyItem& expected, const Hyperslab& slab,
                                  void* out) const;

  /// read_rows for members [first, first + count) only, into rows 0 .. count - 1 of `out`
  /// (a family streamed in parts). Returns the index in the family of the member that
  /// differs. Throws Error(kUsage) for members beyond the last.
  std::optional<size_t> read_rows(NodeId item, const FamilyItem& expected, const Hyperslab& slab,
                                  void* out, size_t first, size_t count) const;

 private:
  /// read_rows for the batch of members [first, end), through `io`, member i's row at row
  /// i - out_first of `out`; its first member with a problem and, for an error, what it
  /// threw.
  struct RowProblem {
    size_t member = SIZE_MAX;
    std::exception_ptr error;  ///< null: the member's item differs
  };
  RowProblem read_rows_of(const MemberBatchPlan& plan, size_t first, size_t end, NodeId item,
                          const FamilyItem& expected, const Hyperslab& slab, unsigned char* out,
                          size_t out_first, io::BatchIo& io) const;

  std::shared_ptr<const Layout> layout_;
  std::unique_ptr<BindPlan> plan_;
  std::vector<FamilyMemberFile> members_;
};

}  // namespace dudley::layout
