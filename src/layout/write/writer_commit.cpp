// The Writer's back half: commit() computes every address exactly as a reader will (the
// binder, run on a file of zeros with the writer's parameter values), checks every array
// against its place, then writes the file through a temporary renamed into place.
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include <map>

#include <fmt/format.h>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/disk_room.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/embedded.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/write/pair_record.hpp"
#include "dudley/layout/write/writer.hpp"
#include "writer_support.hpp"

namespace dudley::layout {

namespace {

// Bytes of data written per call (and swapped in a buffer of this size when the file's
// order is foreign): large enough for full-speed writes, small enough to stay in cache.
constexpr uint64_t kChunk = uint64_t{4} << 20;

// Planning binds the layout to zeros this long: every address the layout can compute fits.
constexpr uint64_t kPlanningSize = uint64_t{1} << 62;

// The spec's literal signature bytes [C20].
void signature_bytes(ByteOrder order, unsigned char out[8]) {
  static constexpr unsigned char kBig[8] = {0x89, 0x44, 0x75, 0x44, 0x0d, 0x0a, 0x1a, 0x0a};
  static constexpr unsigned char kLittle[8] = {0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a};
  std::copy_n(order == ByteOrder::kBig ? kBig : kLittle, 8, out);
}

// An integer parameter's bytes in the file.
std::vector<unsigned char> integer_bytes(int64_t value, unsigned size, ByteOrder order) {
  std::vector<unsigned char> bytes(size);
  const auto v = static_cast<uint64_t>(value);
  for (unsigned i = 0; i < size; ++i) {
    const unsigned shift = 8 * (order == ByteOrder::kBig ? size - 1 - i : i);
    bytes[i] = static_cast<unsigned char>(v >> shift);
  }
  return bytes;
}

DType native(const DType& t) {
  return t.needs_swap() ? t.with_byte_order(native_byte_order()) : t;
}

// A type as its innermost element and the dimensions above it: a string of L code units is
// L units of one, a fixed array its base's elements. numpy's S2 and a layout's S1[2] (a
// compound's field, say) are two spellings of the same bytes.
std::pair<DType, std::vector<int64_t>> flattened(const DType& t, std::vector<int64_t> dims) {
  if (t.kind() == DTypeKind::kFixedArray) {
    const std::vector<int64_t>& inner = t.array_shape();
    dims.insert(dims.end(), inner.begin(), inner.end());
    return flattened(t.base(), std::move(dims));
  }
  if (t.kind() == DTypeKind::kText && t.text_length() > 1) {
    dims.push_back(static_cast<int64_t>(t.text_length()));
    return {DType::text(t.encoding(), 1, t.byte_order()), std::move(dims)};
  }
  return {t, std::move(dims)};
}

// Whether elements of `given` and `declared` hold the same values in the same places, byte
// order aside (the writer converts it), compound fields matched by name and offset.
bool same_elements(const DType& given, const DType& declared, int depth) {
  const auto [a, a_dims] = flattened(given, {});
  const auto [b, b_dims] = flattened(declared, {});
  if (a_dims != b_dims) return false;
  if (a.kind() != DTypeKind::kCompound || b.kind() != DTypeKind::kCompound || depth > 64) {
    if (a.kind() == DTypeKind::kText && b.kind() == DTypeKind::kText) {
      return a.encoding() == b.encoding();
    }
    return native(a) == native(b);
  }
  const std::vector<DTypeField>& fa = a.fields();
  const std::vector<DTypeField>& fb = b.fields();
  if (a.size() != b.size() || fa.size() != fb.size()) return false;
  for (size_t i = 0; i < fa.size(); ++i) {
    if (fa[i].name != fb[i].name || fa[i].offset != fb[i].offset) return false;
    const DType ta =
        fa[i].shape.empty() ? *fa[i].type : DType::fixed_array(*fa[i].type, fa[i].shape);
    const DType tb =
        fb[i].shape.empty() ? *fb[i].type : DType::fixed_array(*fb[i].type, fb[i].shape);
    if (!same_elements(ta, tb, depth + 1)) return false;
  }
  return true;
}

// Whether elements of `given` are stored as `declared` ones are, byte order included, so
// that the given bytes need no conversion: a primitive of one size in one order.
bool already_in_order(const DType& given, const DType& declared) {
  const auto simple = [](const DType& t) {
    return t.kind() != DTypeKind::kCompound && t.kind() != DTypeKind::kFixedArray &&
           t.kind() != DTypeKind::kEnum;
  };
  return simple(given) && simple(declared) && given.needs_swap() && declared.needs_swap() &&
         given.size() == declared.size() && given.byte_order() == declared.byte_order();
}

// Whether an array of `given` elements may fill an item of `declared` ones (the item's
// shape already holds a string's length as its last dimension).
bool compatible(const DType& given, const DType& declared) {
  if (declared.kind() == DTypeKind::kPointer) {
    return given.size() == declared.size() &&
           (given.kind() == DTypeKind::kPointer || given.kind() == DTypeKind::kUInt ||
            given.kind() == DTypeKind::kInt);
  }
  if (given.kind() == DTypeKind::kText && declared.kind() == DTypeKind::kText) {
    return given.encoding() == declared.encoding();
  }
  if (given.kind() == DTypeKind::kCompound) return same_elements(given, declared, 0);
  return native(given) == native(declared);
}

}  // namespace

bool varying_type(const Layout& l, const TypeRef& ref, int depth) {
  if (ref.kind != TypeRef::Kind::kUser || depth > 64) return false;
  const TypeDef& t = l.types[ref.user];
  if (t.has_dynamic_params || t.kind == TypeKind::kHeteroBody) return true;
  return std::any_of(t.body.begin(), t.body.end(), [&](const StructEntry& e) {
    return e.kind == StructEntry::Kind::kMember &&
           varying_type(l, l.nodes[e.index].type, depth + 1);
  });
}

namespace {

// Checks an array against its place; `shape` is the array's shape in layout terms.
void check_fit(const std::string& what, const DType& given, const std::vector<int64_t>& shape,
               const BoundArray& where) {
  if (!compatible(given, where.dtype)) {
    throw Error(ErrorCategory::kType, fmt::format("{} is declared {}, the array given is {}", what,
                                                  where.dtype.to_string(), given.to_string()));
  }
  if (shape != where.shape) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} has shape {} in the layout, the array given {}", what,
                            Shape(where.shape).to_string(), Shape(shape).to_string()));
  }
}

// Bytes below the region's dimensions (a string's characters, a typedef's own dimensions).
uint64_t region_inner_bytes(const std::string& what, const Hyperslab& region, const DType& given,
                            const std::vector<int64_t>& given_shape, const BoundArray& where) {
  const size_t rank = region.count.size();
  if (!compatible(given, where.dtype) || rank > where.shape.size()) {
    throw Error(ErrorCategory::kType,
                fmt::format("{} is declared {}{}, the region given is {} of rank {}", what,
                            where.dtype.to_string(), Shape(where.shape).to_string(),
                            given.to_string(), rank));
  }
  std::vector<int64_t> inner(where.shape.begin() + static_cast<std::ptrdiff_t>(rank),
                             where.shape.end());
  // A region's elements are the given array's: strings of L > 1 units bring that dimension.
  std::vector<int64_t> given_inner;
  if (given.kind() == DTypeKind::kText && given.text_length() > 1) {
    given_inner.push_back(static_cast<int64_t>(given.text_length()));
  }
  if (inner != given_inner) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: each element of the region must be {} (the layout's last "
                            "dimensions), not {}",
                            what, Shape(inner).to_string(), Shape(given_inner).to_string()));
  }
  const std::vector<int64_t> outer(where.shape.begin(),
                                   where.shape.begin() + static_cast<std::ptrdiff_t>(rank));
  try {
    region.check_fits(outer);
  } catch (const Error& e) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the region leaves the item's shape {}: {}", what,
                            Shape(where.shape).to_string(), e.message()));
  }
  (void)given_shape;
  uint64_t bytes = where.dtype.size();
  for (int64_t d : inner) bytes *= static_cast<uint64_t>(d);
  return bytes;
}

using PutBytes =
    std::function<void(const DType& type, uint64_t address, const unsigned char* src, uint64_t n)>;

// A pointer array's keys must each name a pointee (or be NULL: 0 or all ones) [C19].
void check_pointers(const Layout& layout, const std::string& what, const NDArray& data) {
  std::set<uint64_t> keys;
  for (const Pointee& p : layout.pointees) keys.insert(p.key);
  const unsigned size = static_cast<unsigned>(data.dtype().size());
  const uint64_t null_all_ones = size == 4 ? 0xffffffffu : ~uint64_t{0};
  const NDArray native_data = data.dtype().needs_swap() ? data.to_native() : data;
  uint64_t index = 0;
  native_data.for_each_element([&](const void* element) {
    uint64_t key = 0;
    if (size == 4) {
      uint32_t k;
      std::memcpy(&k, element, 4);
      key = k;
    } else {
      std::memcpy(&key, element, 8);
    }
    if (key != 0 && key != null_all_ones && !keys.count(key)) {
      throw Error(ErrorCategory::kData,
                  fmt::format("{}: element {} points to {}, which the layout declares no "
                              "pointee for",
                              what, index, key));
    }
    ++index;
  });
}

// A whole array to reorder (Fortran order, strided views) or to swap, converted a block of
// rows at a time: memory stays a block's whatever the array's size.
void write_in_blocks(const NDArray& given, const BoundArray& where, const PutBytes& put) {
  const std::vector<int64_t>& dims = given.shape().dims();
  const auto rows = static_cast<uint64_t>(dims[0]);
  const uint64_t row_bytes = given.byte_size() / rows;
  const uint64_t per_block = std::max<uint64_t>(1, kChunk / std::max<uint64_t>(row_bytes, 1));
  std::vector<unsigned char> block;
  for (uint64_t r = 0; r < rows; r += per_block) {
    const uint64_t n = std::min(per_block, rows - r);
    Hyperslab slab = Hyperslab::all(dims);
    slab.start[0] = static_cast<int64_t>(r);
    slab.count[0] = static_cast<int64_t>(n);
    block.resize(n * row_bytes);
    given.select(slab).copy_native_into(block.data());
    put(where.dtype, where.address + r * row_bytes, block.data(), n * row_bytes);
  }
}

// A region's elements, C order in `src`, to their places in the item `where`.
void write_region(const BoundArray& where, const Hyperslab& region, const unsigned char* src,
                  const PutBytes& put) {
  const size_t rank = region.count.size();
  uint64_t inner = where.dtype.size();
  for (size_t i = rank; i < where.shape.size(); ++i) inner *= static_cast<uint64_t>(where.shape[i]);
  if (rank == 0) {
    put(where.dtype, where.address, src, inner);
    return;
  }
  for (int64_t c : region.count) {
    if (c == 0) return;
  }
  // Byte distance between neighbours along each dimension of the item.
  std::vector<uint64_t> pitch(rank);
  pitch[rank - 1] = inner;
  for (size_t i = rank - 1; i-- > 0;)
    pitch[i] = pitch[i + 1] * static_cast<uint64_t>(where.shape[i + 1]);
  auto step = [&](size_t i) { return region.step(i); };
  // Along the last dimension, a stride of 1 makes one run of the whole count.
  const bool contiguous = step(rank - 1) == 1;
  const uint64_t run = contiguous ? inner * static_cast<uint64_t>(region.count[rank - 1]) : inner;
  std::vector<int64_t> index(rank, 0);
  const size_t outer = contiguous ? rank - 1 : rank;  // dimensions the odometer walks
  while (true) {
    uint64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) {
      offset += static_cast<uint64_t>(region.start[i] + index[i] * step(i)) * pitch[i];
    }
    put(where.dtype, where.address + offset, src, run);
    src += run;
    size_t i = outer;
    while (i > 0) {
      --i;
      if (++index[i] < region.count[i]) break;
      index[i] = 0;
      if (i == 0) return;
    }
    if (outer == 0) return;
  }
}

// Whether bytes stored as `stored` are, unchanged, the bytes of `wanted`: a file-to-file
// copy then writes the array (scalars of one kind, size and byte order; structs only when
// they are the same type).
bool same_bytes(const DType& stored, const DType& wanted) {
  if (stored.size() != wanted.size() || stored.kind() != wanted.kind()) return false;
  if (stored.kind() == DTypeKind::kCompound) return stored == wanted;
  return stored.needs_swap() == wanted.needs_swap();
}

// Writes `stored` at `address` file to file (io::AtomicFile::copy_from).
using CopyBytes =
    std::function<void(const model::ArraySource::StoredBytes& stored, uint64_t address)>;

// Another file's array, read piece by piece into one reused buffer (see read_pieces.hpp):
// memory stays one piece whatever the array's size. `inspect` sees each piece before it is
// written (pointer keys are checked there).
void stream_array(const BoundArray& where, model::ArraySource& source,
                  const std::vector<int64_t>& source_shape, const PutBytes& put,
                  const std::function<void(const NDArray&)>& inspect,
                  std::vector<unsigned char>& buffer, const CopyBytes& copy) {
  if (where.byte_size == 0) return;
  // The source's elements may group the bytes differently (strings as units along a last
  // dimension), but there are as many bytes.
  const uint64_t elements = *Shape(source_shape).element_count();
  const uint64_t element = where.byte_size / std::max<uint64_t>(elements, 1);
  // A damaged array fails before any of it is written (ASDF checksums), as a whole read would.
  source.verify();
  // The same bytes in a file: the kernel copies them (pointer keys are checked on the way,
  // so pointers are read).
  if (where.dtype.kind() != DTypeKind::kPointer) {
    if (auto stored = source.stored_bytes();
        stored && stored->size == where.byte_size && same_bytes(stored->dtype, where.dtype)) {
      copy(*stored, where.address);
      return;
    }
  }
  const DType native =
      where.dtype.needs_swap() ? where.dtype.with_byte_order(native_byte_order()) : where.dtype;
  model::for_each_piece(
      source_shape, element, source.read_unit(), model::kPieceBytes,
      [&](const model::Piece& piece) {
        if (buffer.size() < piece.bytes) buffer.resize(piece.bytes);
        source.read_into(piece.slab, buffer.data());
        if (source_shape.size() == where.shape.size()) {
          inspect(NDArray::borrow(buffer.data(), native, Shape(piece.slab.result_shape())));
        }
        put(where.dtype, where.address + piece.offset, buffer.data(), piece.bytes);
        return true;
      });
}

}  // namespace

// Arrays from this size up are worth a page's padding to be copied page by page.
constexpr uint64_t kAlignCopiesFrom = uint64_t{1} << 20;
constexpr uint64_t kPage = 4096;

void Writer::align_copies(std::unique_ptr<Binding>& binding, const BindOptions& bind) {
  Layout& l = *own_layout_;
  // The arrays to place: statement index -> the offset within a page of their source bytes.
  std::map<size_t, uint64_t> wanted;
  std::map<NodeId, size_t> statement_of;
  for (size_t i = 0; i < l.statements.size(); ++i) {
    if (l.statements[i].kind == Statement::Kind::kData) statement_of[l.statements[i].index] = i;
  }
  for (const Input& input : inputs_) {
    if (!input.source || input.region || input.pointee != kNone) continue;
    auto statement = statement_of.find(input.node);
    if (statement == statement_of.end()) continue;
    const BoundArray where = binding->array(input.node);
    if (where.byte_size < kAlignCopiesFrom || where.dtype.kind() == DTypeKind::kPointer) continue;
    std::optional<model::ArraySource::StoredBytes> stored;
    try {
      stored = input.source->stored_bytes();
    } catch (const Error&) {
      continue;  // reported when the array is written
    }
    if (!stored || stored->size != where.byte_size || !same_bytes(stored->dtype, where.dtype))
      continue;
    const auto span = stored->source->file_span();
    if (!span) continue;
    wanted[statement->second] = (span->base + stored->offset) % kPage;
  }
  if (wanted.empty()) return;
  // A made layout is packed: padding before an array moves everything after it as much.
  const Table<Statement> before = l.statements;
  const size_t cursors_before = l.cursors.size();
  std::map<NodeId, uint64_t> planned;
  Table<Statement> statements;
  uint64_t shift = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    auto it = wanted.find(i);
    if (it != wanted.end()) {
      const NodeId node = before[i].index;
      const uint64_t at = binding->array(node).address + shift;
      const uint64_t pad = (it->second + kPage - at % kPage) % kPage;
      shift += pad;
      planned[node] = at + pad;
      if (pad != 0) {
        l.cursors.push_back(at + pad);
        statements.push_back({Statement::Kind::kCursor, before[i].container,
                              static_cast<uint32_t>(l.cursors.size() - 1)});
      }
    }
    statements.push_back(before[i]);
  }
  if (shift == 0) return;
  l.statements = std::move(statements);
  binding = std::make_unique<Binding>(l, io::zero_source(kPlanningSize), bind);
  for (const auto& [node, address] : planned) {
    if (binding->array(node).address == address) continue;
    l.statements = before;  // not a packed layout after all: leave it as it was
    l.cursors.resize(cursors_before);
    binding = std::make_unique<Binding>(l, io::zero_source(kPlanningSize), bind);
    return;
  }
}

// What commit() writes where, all checked before a byte is written.
struct Writer::Plan {
  /// One array to write and where it goes.
  struct Job {
    BoundArray where;
    const NDArray* data = nullptr;
    model::ArraySource* source = nullptr;
    const std::vector<int64_t>* source_shape = nullptr;
    const Hyperslab* region = nullptr;
    uint64_t bytes = 0;  ///< written by this job
    std::string what;    ///< the item, for messages
  };
  /// Group parameters, the signature, instances' parameters: small pieces at addresses.
  std::vector<std::pair<uint64_t, std::vector<unsigned char>>> small;
  std::vector<Job> jobs;
  uint64_t end = 0;  ///< the data's extent: where a trailer or embedded layout goes
};

uint64_t Writer::commit() {
  if (options_.align_copies && !own_layout_) {
    own_layout_ = std::make_unique<Layout>(*layout_);
    layout_ = own_layout_.get();
  }
  check_params();
  const BindOptions bind = planning_options();
  auto binding = std::make_unique<Binding>(*layout_, io::zero_source(kPlanningSize), bind);
  place_appended(binding, bind);
  if (options_.align_copies) align_copies(binding, bind);
  Plan plan;
  plan.end = binding->extent();
  plan_small(*binding, plan);
  plan_arrays(*binding, plan);
  plan_instances(*binding, plan);
  const uint64_t file_size = write_planned(plan);
  committed_ = true;
  return file_size;
}

// 1. Every parameter the layout needs, as the reader will compute it; heterogeneous arrays
// sharing a parameter block share its rows, so their values must agree.
void Writer::check_params() const {
  const Layout& l = *layout_;
  for (ParamId p = 0; p < l.params.size(); ++p) {
    const Param& param = l.params[p];
    if (param.group == kNone || param.kind != ParamKind::kDynamic) continue;
    if (!params_.count(p)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("parameter {} has no value: set it, or write an array shaped by it",
                              param_path(l, p)));
    }
  }
  std::map<std::pair<uint64_t, ParamId>, std::pair<int64_t, NodeId>> rows;
  for (const auto& [node, input] : instance_inputs_) {
    for (const auto& [path, values] : input.params) {
      if (path.size() != 1) continue;  // nested instances have no parameter block
      const uint64_t i = path[0];
      for (const auto& [p, value] : values) {
        if (l.params[p].owner == kNone ||
            l.types[l.params[p].owner].kind != TypeKind::kParamBlock) {
          continue;
        }
        auto [it, inserted] = rows.try_emplace({i, p}, value, node);
        if (!inserted && it->second.first != value) {
          throw Error(ErrorCategory::kUsage,
                      fmt::format("{} and {} share parameter block row {}, but need {} = {} and {}",
                                  l.path(it->second.second), l.path(node), i,
                                  l.name(l.params[p].name), it->second.first, value));
        }
      }
    }
  }
}

// How planning binds the layout: to zeros, with the writer's order and parameter values.
BindOptions Writer::planning_options() const {
  BindOptions bind;
  bind.default_order = options_.order;
  bind.signature_unread = true;
  bind.params_absent = options_.params_absent;
  bind.param_values = params_;
  bind.instance_params = [this](NodeId item, const std::vector<uint64_t>& path,
                                ParamId p) -> std::optional<int64_t> {
    auto it = instance_inputs_.find(item);
    if (it == instance_inputs_.end()) return std::nullopt;
    auto values = it->second.params.find(path);
    if (values == it->second.params.end()) return std::nullopt;
    auto value = values->second.find(p);
    if (value == values->second.end()) return std::nullopt;
    return value->second;
  };
  return bind;
}

// 2. Appended list items go after everything else, whatever the last declaration was.
void Writer::place_appended(std::unique_ptr<Binding>& binding, const BindOptions& bind) {
  const Layout& l = *layout_;
  if (appended_from_ < l.statements.size()) {
    const uint64_t base_end = binding->extent(appended_from_);
    const NodeId first = l.statements[appended_from_].index;
    if (binding->array(first).address < base_end) {
      own_layout_->cursors.push_back(base_end);
      own_layout_->statements.insert(
          own_layout_->statements.begin() + appended_from_,
          {Statement::Kind::kCursor, l.statements[appended_from_].container,
           static_cast<uint32_t>(own_layout_->cursors.size() - 1)});
      binding = std::make_unique<Binding>(l, io::zero_source(kPlanningSize), bind);
    }
  }
}

// 3. Small pieces: group parameters, the signature.
void Writer::plan_small(Binding& binding, Plan& plan) const {
  for (ParamId p = 0; p < layout_->params.size(); ++p) {
    auto address = binding.param_address(p);
    if (!address) continue;
    const DType type = *binding.param_dtype(p);
    plan.small.emplace_back(
        *address,
        integer_bytes(params_.at(p), static_cast<unsigned>(type.size()), type.byte_order()));
  }
  if (auto address = binding.signature_address()) {
    std::vector<unsigned char> bytes(8);
    signature_bytes(options_.order, bytes.data());
    plan.small.emplace_back(*address, std::move(bytes));
  }
}

// 4. Every array checked against its place before anything is written.
void Writer::plan_arrays(Binding& binding, Plan& plan) const {
  const Layout& l = *layout_;
  for (const Input& input : inputs_) {
    Plan::Job job;
    std::string what;
    if (input.pointee != kNone) {
      what = fmt::format("pointee {}", l.pointees[input.pointee].key);
      job.where = binding.pointee(input.pointee);
    } else {
      what = l.path(input.node);
      job.where = binding.array(input.node);
    }
    job.what = what;
    job.data = input.source ? nullptr : &input.data;
    job.source = input.source.get();
    job.source_shape = &input.shape;
    if (input.region) {
      region_inner_bytes(what, *input.region, input.dtype, input.shape, job.where);
      job.region = &*input.region;
      job.bytes = input.data.byte_size();
    } else {
      check_fit(what, input.dtype, element_shape(input.dtype, input.shape), job.where);
      job.bytes = job.where.byte_size;
    }
    if (job.where.dtype.kind() == DTypeKind::kPointer && job.data)
      check_pointers(l, what, *job.data);
    plan.jobs.push_back(std::move(job));
  }
}

// 4b. Items whose instances differ in size: each instance's parameters, members and nested
// instances, as placed and as given.
void Writer::plan_instances(Binding& binding, Plan& plan) const {
  const Layout& l = *layout_;
  for (const auto& [node, input] : instance_inputs_) {
    const std::string item = l.path(node);
    std::vector<int64_t> shape;
    const std::vector<BoundInstance> places = binding.instances(node, shape);
    if (places.size() != input.instances.size()) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{} has {} instances (shape {}), {} were given", item, places.size(),
                              Shape(shape).to_string(), input.instances.size()));
    }
    std::set<std::pair<uint64_t, ParamId>> seen;  // a block row is shared by its instances
    // One instance as placed and as given: its parameters, its members, its nested instances.
    std::function<void(const BoundInstance&, const Instance&, const std::string&)> place =
        [&](const BoundInstance& where, const Instance& given, const std::string& what) {
          for (const BoundInstance::Param& p : where.params) {
            if (!p.address || !seen.insert({*p.address, p.param}).second) continue;
            const TypeRef& type = l.params[p.param].type;
            const ByteOrder order =
                type.order == ByteOrder::kUnspecified ? options_.order : type.order;
            plan.small.emplace_back(*p.address,
                                    integer_bytes(p.value, primitive_size(type.primitive), order));
          }
          for (const BoundInstance::Member& m : where.members) {
            const std::string name(l.name(l.nodes[m.node].name));
            const std::string member = fmt::format("{} member '{}'", what, name);
            if (!m.varies) {
              auto array = given.members.find(name);
              if (array == given.members.end()) continue;  // reads as zeros
              Plan::Job job;
              job.where = m.array;
              job.data = &array->second;
              job.bytes = m.array.byte_size;
              job.what = member;
              const NDArray& a = array->second;
              check_fit(member, a.dtype(), element_shape(a.dtype(), a.shape().dims()), job.where);
              plan.jobs.push_back(std::move(job));
              continue;
            }
            auto nested = given.nested.find(name);
            if (nested == given.nested.end()) continue;
            if (nested->second.size() != m.instances.size()) {
              throw Error(ErrorCategory::kUsage,
                          fmt::format("{} has {} instances (shape {}), {} were given", member,
                                      m.instances.size(), Shape(m.shape).to_string(),
                                      nested->second.size()));
            }
            for (size_t j = 0; j < m.instances.size(); ++j) {
              place(m.instances[j], nested->second[j], fmt::format("{} instance {}", member, j));
            }
          }
        };
    for (size_t i = 0; i < places.size(); ++i) {
      place(places[i], input.instances[i], fmt::format("{} instance {}", item, i));
    }
  }
}

// 5b. The arrays, into `file`: from memory (swapped to the file's order on the way) or
// streamed from other files, with progress counted against `total` bytes.
void Writer::write_arrays(io::AtomicFile& file, const Plan& plan, uint64_t total) const {
  const Layout& l = *layout_;
  std::vector<unsigned char> buffer;        // swapped bytes on their way to the file
  std::vector<unsigned char> piece_buffer;  // pieces of other files' arrays
  uint64_t done = 0;
  // Native bytes -> the file at `address`, in chunks, swapped to `type`'s order on the way.
  auto put = [&](const DType& type, uint64_t address, const unsigned char* src, uint64_t n) {
    const uint64_t element = std::max<uint64_t>(1, type.size());
    const uint64_t per_chunk = std::max<uint64_t>(1, kChunk / element) * element;
    for (uint64_t off = 0; off < n; off += per_chunk) {
      const uint64_t m = std::min(per_chunk, n - off);
      if (type.needs_swap()) {
        buffer.assign(src + off, src + off + m);
        swap_elements(buffer.data(), m / element, type);
        file.write_at(address + off, buffer.data(), m);
      } else {
        file.write_at(address + off, src + off, m);
      }
      done += m;
      if (options_.progress) options_.progress(done, total);
    }
  };
  auto copy = [&](const model::ArraySource::StoredBytes& stored, uint64_t address) {
    file.copy_from(*stored.source, stored.offset, address, stored.size, [&](uint64_t n) {
      done += n;
      if (options_.progress) options_.progress(done, total);
    });
  };
  // Other files' checksums first, several at once: a damaged array fails before any byte
  // is written, and the hashing (the slow part) runs on every core.
  std::vector<model::ArraySource*> sources;
  for (const Plan::Job& job : plan.jobs) {
    if (!job.data && job.bytes > 0) sources.push_back(job.source);
  }
  model::verify_all(sources);
  size_t streamed = 0;  // sources[streamed] is the next array read from another file
  for (const Plan::Job& job : plan.jobs) {
    const BoundArray& where = job.where;
    if (job.bytes == 0) continue;
    if (!job.data && ++streamed < sources.size()) sources[streamed]->read_ahead();
    if (job.data) {
      const NDArray& given = *job.data;
      const bool as_given = given.is_c_contiguous() && !given.dtype().needs_swap();
      const bool in_file_order =
          given.is_c_contiguous() && already_in_order(given.dtype(), where.dtype);
      if (!as_given && !in_file_order && !job.region && !given.shape().dims().empty() &&
          given.shape().dims()[0] > 0 && given.byte_size() > kChunk) {
        write_in_blocks(given, where, put);
        continue;
      }
      // The bytes to write, and the type put() converts them from. Data already in the
      // file's byte order (big-endian values for a big-endian item) is written as it is,
      // neither copied nor swapped twice; other data is made native first.
      BoundArray target = where;
      NDArray converted;
      const NDArray* data = &given;
      if (in_file_order) {
        target.dtype = native(where.dtype);
      } else if (!as_given) {
        converted = given.to_native();
        data = &converted;
      }
      const auto* bytes = static_cast<const unsigned char*>(data->data());
      if (job.region) {
        write_region(target, *job.region, bytes, put);
      } else {
        put(target.dtype, where.address, bytes, where.byte_size);
      }
      continue;
    }
    // A pointer array from another file is checked block by block as it streams: a dangling
    // key found late still leaves nothing under the final name.
    stream_array(
        where, *job.source, *job.source_shape, put,
        [&](const NDArray& block) {
          if (where.dtype.kind() == DTypeKind::kPointer) check_pointers(l, job.what, block);
        },
        piece_buffer, copy);
  }
}

// 5. Write: a temporary file, renamed into place only when complete; returns its size.
uint64_t Writer::write_planned(const Plan& plan) {
  const Layout& l = *layout_;
  const uint64_t end = plan.end;
  uint64_t total = 0;
  for (const Plan::Job& job : plan.jobs) total = checked_add(total, job.bytes).value_or(UINT64_MAX);
  // The bytes written, not the file's extent (what no array fills is a hole): refused before
  // a byte is written when the file system cannot take them.
  io::check_room(path_, total);
  io::AtomicFile file(path_);
  file.resize(end);
  std::string layout_text;
  uint64_t file_size = end;
  if (options_.write_layout || options_.embed_layout) layout_text = emit_layout(l);
  // Data and layout in two files: both carry one identifier, so a reader can tell a pair
  // from two halves of different writes (pair_record.hpp).
  const bool paired = options_.write_layout && !options_.embed_layout;
  std::optional<io::AtomicFile> layout_file;
  if (paired) {
    const PairRecord record = new_pair_record(end);
    const std::string trailer = pair_trailer(record);
    file.write_at(end, trailer.data(), trailer.size());
    file_size = end + trailer.size();
    layout_text = pair_line(record) + layout_text;
    layout_file.emplace(layout_path_for(path_));  // refuses a directory there, before writing
  }
  if (options_.embed_layout) {
    const std::string trailer = embedded_trailer(end, layout_text);
    file.write_at(end, layout_text.data(), layout_text.size());
    file.write_at(end + layout_text.size(), trailer.data(), trailer.size());
    file_size = end + layout_text.size() + trailer.size();
  }
  for (const auto& [address, bytes] : plan.small)
    file.write_at(address, bytes.data(), bytes.size());
  write_arrays(file, plan, total);
  if (paired) {
    layout_file->write_at(0, layout_text.data(), layout_text.size());
    io::AtomicFile::commit_pair(file, *layout_file, options_.fsync);
  } else {
    file.commit(options_.fsync);
    if (options_.write_layout) {
      write_file_atomically(layout_path_for(path_), layout_text, options_.fsync);
    }
  }
  return file_size;
}

}  // namespace dudley::layout
