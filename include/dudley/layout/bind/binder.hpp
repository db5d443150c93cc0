// Binding a layout to bytes: every parameter's value, every array's element type, shape and
// address. Resolution is lazy and demand-driven: asking for one item evaluates only the
// declarations its address and shape depend on (the chain of cursor predecessors back to an
// explicit address, and the parameters in its shape), and gives the same answer a
// sequential pass over the whole layout would.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/bind_plan.hpp"
#include "dudley/layout/syntax/layout.hpp"

namespace dudley::layout {

struct BindOptions {
  /// Order of '|' (and unprefixed) multi-byte types when the layout has no !DUDLEY
  /// signature. With a signature, the signature wins.
  std::optional<ByteOrder> default_order;
  /// Parameter values supplied by the caller [C23], by name ("N": every parameter of that
  /// name) or by path ("/g/N"); a path wins over a name.
  std::map<std::string, int64_t> params;
  /// Parameter values by declaration (a writer knows exactly which one it means, even for a
  /// redeclared name); they win over `params`.
  std::map<ParamId, int64_t> param_values;
  /// True: dynamic parameters are absent from the file and occupy no bytes, so each must be
  /// supplied in `params`. False: supplied values replace what the file holds.
  bool params_absent = false;
  /// For writers planning a file not yet written: the !DUDLEY signature is not read, the
  /// file's order is `default_order` (which must be set).
  bool signature_unread = false;
  /// For writers planning instances that differ in size: the value of a parameter stored
  /// in an instance (a counted array's count, an element's parameter-block values), given
  /// instead of read. Called with the data item, the instance's path and the parameter;
  /// nullopt reads the file as usual. The path is the instance's index in C order, then for
  /// an instance nested in a member of it, that member's NodeId and the nested index, and so
  /// on: {2} is the item's instance 2, {2, m, 0} instance 0 of member m of that one.
  std::function<std::optional<int64_t>(NodeId item, const std::vector<uint64_t>& path,
                                       ParamId param)>
      instance_params;
};

/// Where and what one data item is.
struct BoundArray {
  DType dtype;                 ///< element type, byte order resolved
  std::vector<int64_t> shape;  ///< slowest first; typedef members' dims are appended
  uint64_t address = 0;
  uint64_t byte_size = 0;  ///< product(shape) * dtype.size()
};

/// One instance of a struct whose instances differ in size: a counted array
/// (`string := { n := u4  = S1[n] }`), a struct with parameters stored in each instance, or
/// an element of a heterogeneous array of a parameter block [C16, C21].
struct BoundInstance {
  uint64_t address = 0;
  uint64_t size = 0;
  struct Param {
    ParamId param = kNone;
    int64_t value = 0;
    std::optional<uint64_t> address;  ///< empty for fixed values
  };
  /// A heterogeneous array element's parameter-block values, then the instance's own
  /// parameters, each in declaration order.
  std::vector<Param> params;
  struct Member {
    NodeId node = kNone;  ///< the member's declaration in the struct
    BoundArray array;     ///< where a member of fixed-size elements is
    /// A member whose own instances vary (a counted array inside a struct): their shape
    /// and layouts, in C order.
    bool varies = false;
    std::vector<int64_t> shape;
    std::vector<BoundInstance> instances;
  };
  std::vector<Member> members;  ///< in declaration order
};

/// A layout bound to a byte source. Keeps a reference to the layout (or plan): it must
/// outlive the binding. Not thread-safe: use one binding per thread.
class Binding {
 public:
  /// Resolves the external parameters of `options` (throws Error(kUsage) for a name or path
  /// that matches no parameter). Reads nothing yet. Compiles the layout's BindPlan: to bind
  /// many files of one layout, build the plan once and use the other constructor.
  Binding(const Layout& layout, std::shared_ptr<io::ByteSource> source, BindOptions options = {});
  /// The same with a plan shared by many bindings (a file family). Throws Error(kUsage) when
  /// `options.params_absent` differs from the plan's.
  Binding(const BindPlan& plan, std::shared_ptr<io::ByteSource> source, BindOptions options = {});
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  const Layout& layout() const { return layout_; }
  const io::ByteSource& source() const { return *source_; }

  /// Value of a group parameter, read from the file on first use. Throws Error(kData)
  /// naming the parameter when its bytes lie beyond the end of the data.
  int64_t param_value(ParamId param);
  /// Stored type of a dynamic parameter (order resolved); nullopt for a fixed one.
  std::optional<DType> param_dtype(ParamId param);
  /// Address of a dynamic group parameter in the file; nullopt for fixed or absent ones.
  std::optional<uint64_t> param_address(ParamId param);

  /// Type, shape and address of a data node (group member or list item). Checks that the
  /// whole item lies inside the data; throws Error(kData) naming the item otherwise, and
  /// Error(kType) for a multi-byte '|' type when no byte order is known.
  BoundArray array(NodeId node);
  /// The same without checking that the bytes are present, for a caller about to read them
  /// (the read reports an item beyond the end). Saves looking up the file's length.
  BoundArray locate(NodeId node);

  /// Type, shape and address of pointee `index` (into Layout::pointees) [C19]; checks that
  /// it lies inside the data like array().
  BoundArray pointee(uint32_t index);

  /// True for a data item whose instances differ in size (see BoundInstance); array()
  /// refuses those, instances() lays them out.
  bool has_varying_instances(NodeId node) const;
  /// The layout of each instance of such an item in C order, and (in `shape`) the item's
  /// shape of instances. Reads the instances' parameters; checks that every member lies
  /// inside the data (Error(kData) naming the item otherwise).
  std::vector<BoundInstance> instances(NodeId node, std::vector<int64_t>& shape);

  /// Instance `index` (in C order) of such an item, laid out like one element of
  /// instances(), but expanding only that one: the instances before it are measured, not
  /// kept, and asking for increasing indexes goes on from the previous one (a sequential
  /// listing costs one pass). Memory is that of one instance. Throws Error(kUsage) for an
  /// index beyond the item's count, Error(kData) when the instance is not inside the data.
  BoundInstance instance(NodeId node, uint64_t index);
  /// The item's shape of instances (what instances() puts in `shape`), without laying any
  /// out.
  std::vector<int64_t> instance_shape_of(NodeId node);

  /// Most instance records one instance (with its nested instances) or one instances() call
  /// may make; beyond it, Error(kLimit).
  static constexpr uint64_t kMaxInstanceRecords = uint64_t{1} << 20;

  /// The end of the layout's last byte: the largest end address of any of the first
  /// `statements` declarations (all by default; 0 for a layout that takes no bytes).
  /// Places each of them; for writers sizing a file.
  uint64_t extent(uint32_t statements = UINT32_MAX);
  /// Where the !DUDLEY signature is; nullopt when the layout has none.
  std::optional<uint64_t> signature_address();

  /// The file's default byte order: from the signature (read on first use), else the
  /// option; nullopt when neither says.
  std::optional<ByteOrder> default_order();

 private:
  Binding(std::unique_ptr<BindPlan> own_plan, const BindPlan* plan,
          std::shared_ptr<io::ByteSource> source, BindOptions options);
  template <typename F>
  auto named_on_error(F&& f);
  void allocate_placement();
  uint64_t cursor_before(uint32_t statement);
  std::optional<uint64_t> formula_cursor(uint32_t statement);
  uint64_t param_start(ParamId param);
  void read_small(uint64_t address, unsigned length, unsigned char* out, const std::string& what);
  int64_t param_value_impl(ParamId param);
  BoundArray array_impl(NodeId node, bool check_range);
  void ensure(uint32_t statement);
  template <typename Visit>
  void for_each_dependency(uint32_t statement, Visit&& visit);
  bool compute(uint32_t statement);
  uint64_t size_of(uint32_t statement);
  std::vector<int64_t> evaluate_dims(Span dims);
  int64_t read_integer(const TypeRef& type, uint64_t address, const std::string& what);
  DType element_dtype(const TypeRef& type, const std::vector<int64_t>& bound,
                      std::vector<int64_t>& inner_shape, const std::string& what, int depth);
  std::vector<int64_t> bound_values(const Node& node);
  uint64_t member_end(const TypeDef& type, const Node& member, uint64_t offset, uint64_t bytes,
                      const std::string& what);
  using Locals = std::vector<std::pair<ParamId, int64_t>>;
  bool has_variable_instances(const TypeRef& type, int depth = 0) const;
  uint64_t one_instance(const TypeRef& type, uint64_t i, uint64_t base,
                        const std::vector<int64_t>& bound, const std::string& what, int depth,
                        BoundInstance* record);
  void take_record(const std::string& what, uint64_t n);
  void check_instance_ranges(const BoundInstance& instance, const std::string& what);
  const Node& varying_item(NodeId node) const;
  static void shift_instance(BoundInstance& instance, uint64_t delta);
  uint64_t variable_extent(const TypeRef& type, uint64_t count, uint64_t base,
                           const std::vector<int64_t>& bound, const std::string& what, int depth,
                           std::vector<BoundInstance>* record);
  uint64_t instance_extent(TypeId type, uint64_t base, const std::vector<int64_t>& bound,
                           const Locals& block, const std::string& what, int depth,
                           BoundInstance* record);
  uint64_t instance_count(const std::vector<int64_t>& shape, const std::string& what);
  std::vector<int64_t> instance_shape(const Node& node);
  Locals block_instance(TypeId block, uint64_t index, const std::string& what,
                        BoundInstance* record = nullptr);
  void instance_param(ParamId param, uint64_t base, uint64_t& cursor, uint64_t& extent,
                      Locals& values, const std::string& what, int depth,
                      BoundInstance* record = nullptr);
  int64_t local_value(ParamId p, const Locals& own, const Locals& block);
  uint64_t checked_bytes(const std::vector<int64_t>& shape, uint64_t element,
                         const std::string& what, uint64_t at);
  std::string describe(uint32_t statement) const;

  std::unique_ptr<BindPlan> own_plan_;  ///< when constructed from a bare layout
  const BindPlan& plan_;
  const Layout& layout_;
  std::shared_ptr<io::ByteSource> source_;
  BindOptions options_;
  std::vector<std::optional<int64_t>> external_;  ///< ParamId -> supplied value (or empty)
  struct ParamValue {
    int64_t value = 0;
    bool known = false;
  };
  std::vector<ParamValue> values_;  ///< ParamId -> value once read
  // Step-by-step placement, allocated on first use (the plan's formulas often suffice).
  std::vector<uint64_t> start_, end_;  ///< statement -> address range
  std::vector<uint8_t> done_;          ///< statement placed
  std::vector<uint8_t> computing_;     ///< statement being placed (cycle check)
  // Parameters usually sit together: one read brings in their neighbours too. The first
  // read is small (a copy costs); each further miss doubles it (parameter-block instances).
  static constexpr unsigned kReadAheadFirst = 64, kReadAheadMax = 4096;
  unsigned char read_ahead_[kReadAheadMax];
  unsigned read_ahead_next_ = kReadAheadFirst;
  uint64_t read_ahead_start_ = 0, read_ahead_size_ = 0;
  bool sizing_ = false;  ///< measuring: byte orders are not needed (nor asked for)
  bool naming_ = false;  ///< build item names (only when replaying a failure for its message)
  std::optional<ByteOrder> signature_order_;
  /// Instance records one expansion may still make (instances(), instance()): bounds the
  /// memory a layout can ask for with nested counts the file does not back.
  uint64_t records_left_ = kMaxInstanceRecords;
  /// Parameters taken per instance so far (read or given by the hook): an instance that
  /// takes none is identical to its siblings.
  uint64_t stored_reads_ = 0;
  /// Where the last instance() walk of an item stopped, to go on from there.
  struct Walk {
    NodeId node = kNone;
    uint64_t next = 0;  ///< index of the instance that starts at `address`
    uint64_t address = 0;
  };
  Walk walk_;
  /// The top-level item and instance being measured, for BindOptions::instance_params.
  NodeId hook_item_ = kNone;
  std::vector<uint64_t> hook_path_;
};

/// Decodes an 8-byte Dudley signature [C20]: the spec's bytes and the ASCII forms both.
/// nullopt when the bytes are not a signature.
std::optional<ByteOrder> decode_signature(const unsigned char bytes[8]);

}  // namespace dudley::layout
