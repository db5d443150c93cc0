#include "dudley/layout/writer.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/layout/binder.hpp"
#include "dudley/layout/emitter.hpp"
#include "dudley/layout/parser.hpp"

namespace dudley::layout {

namespace {

// Bytes of data written per call (and swapped in a buffer of this size when the file's
// order is foreign): large enough for full-speed writes, small enough to stay in cache.
constexpr uint64_t kChunk = uint64_t{4} << 20;

// Planning binds the layout to zeros this long: every address the layout can compute fits.
constexpr uint64_t kPlanningSize = uint64_t{1} << 62;

bool varies(const Layout& l, const TypeRef& ref, int depth = 0) {
  if (ref.kind != TypeRef::Kind::kUser || depth > 64) return false;
  const TypeDef& t = l.types[ref.user];
  if (t.has_dynamic_params || t.kind == TypeKind::kHeteroBody) return true;
  return std::any_of(t.body.begin(), t.body.end(), [&](const StructEntry& e) {
    return e.kind == StructEntry::Kind::kMember && varies(l, l.nodes[e.index].type, depth + 1);
  });
}

bool order_unspecified(const TypeRef& ref) {
  return ref.kind == TypeRef::Kind::kPrimitive && ref.order == ByteOrder::kUnspecified &&
         primitive_size(ref.primitive) > 1;
}

std::string param_path(const Layout& l, ParamId p) {
  const std::string group = l.path(l.params[p].group);
  return (group == "/" ? "" : group) + "/" + std::string(l.name(l.params[p].name));
}

// The parameter value a dimension of `extent` needs, given the dimension's suffixes [C14].
std::optional<int64_t> invert_dimension(int64_t extent, int32_t adjust) {
  if (extent == 0) return 0;
  const int64_t value = extent - adjust;
  if (value <= 0) return std::nullopt;
  return value;
}

// The spec's literal signature bytes [C20].
void signature_bytes(ByteOrder order, unsigned char out[8]) {
  static constexpr unsigned char kBig[8] = {0x89, 0x44, 0x75, 0x44, 0x0d, 0x0a, 0x1a, 0x0a};
  static constexpr unsigned char kLittle[8] = {0x89, 0x64, 0x95, 0x64, 0x0d, 0x0a, 0x1a, 0x0a};
  std::copy_n(order == ByteOrder::kBig ? kBig : kLittle, 8, out);
}

}  // namespace

std::string layout_path_for(const std::string& data_path) {
  return std::filesystem::path(data_path).replace_extension(".dud").string();
}

Writer::Writer(const Layout& layout, std::string data_path, WriteOptions options)
    : layout_(layout), path_(std::move(data_path)), options_(std::move(options)) {
  if (options_.order != ByteOrder::kLittle && options_.order != ByteOrder::kBig) {
    throw Error(ErrorCategory::kUsage, "the write order must be little or big");
  }
  for (NodeId n = 0; n < layout_.nodes.size(); ++n) {
    const Node& node = layout_.nodes[n];
    if (node.kind == NodeKind::kData && varies(layout_, node.type)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: writing counted or heterogeneous arrays is not supported yet",
                              layout_.path(n)));
    }
  }
  if (layout_.template_directive) {  // [C22]: refuse a template that breaks its rules
    std::vector<Diagnostic> problems;
    check_template_rules(layout_, problems);
    if (!problems.empty()) {
      throw Error(ErrorCategory::kSemantic,
                  fmt::format("the layout is a !TEMPLATE but breaks its rules: {} (line {})",
                              problems.front().message, problems.front().line));
    }
  }
  if (!layout_.pointees.empty()) {
    throw Error(ErrorCategory::kUsage, "writing pointees is not supported yet");
  }
  if (options_.write_layout && std::filesystem::path(path_).extension() == ".dud") {
    throw Error(ErrorCategory::kUsage, "the data file may not end in .dud: its layout goes there",
                Location::file(path_));
  }
  // A file is self-describing only if its reader can know every byte order.
  if (!layout_.signature) {
    auto unspecified = [&](const TypeRef& t) { return order_unspecified(t); };
    const bool any = std::any_of(layout_.nodes.begin(), layout_.nodes.end(),
                                 [&](const Node& n) { return unspecified(n.type); }) ||
                     std::any_of(layout_.params.begin(), layout_.params.end(), [&](const Param& p) {
                       return p.kind == ParamKind::kDynamic && unspecified(p.type);
                     });
    if (any) {
      throw Error(ErrorCategory::kUsage,
                  "the layout has multi-byte types without a byte order and no !DUDLEY "
                  "signature, so no reader could know the order written: add "
                  "'!DUDLEY := S1[8]' at its start, or '<' / '>' prefixes");
    }
  }
}

ParamId Writer::find_param(std::string_view key) const {
  ParamId found = kNone;
  std::set<std::string> paths;  // of the parameters matching a bare name
  const bool by_path = key.find('/') != std::string_view::npos;
  for (ParamId p = 0; p < layout_.params.size(); ++p) {
    if (layout_.params[p].group == kNone) continue;  // struct and block parameters
    const std::string path = param_path(layout_, p);
    if (by_path ? path == key : layout_.name(layout_.params[p].name) == key) {
      found = p;  // a redeclared parameter: the last declaration is the one in force
      paths.insert(path);
    }
  }
  if (found == kNone) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("the layout has no parameter {}", std::string(key)));
  }
  if (paths.size() > 1) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("parameter name {} is used in several groups ({}): give its path",
                            std::string(key), fmt::join(paths, ", ")));
  }
  return found;
}

void Writer::set_param_value(ParamId p, int64_t value, const std::string& why) {
  const Param& param = layout_.params[p];
  const std::string path = param_path(layout_, p);
  if (param.kind == ParamKind::kFixed && param.value != value) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is fixed at {} in the layout, but {} needs {}", path, param.value,
                            why, value));
  }
  auto [it, inserted] = params_.emplace(p, value);
  if (!inserted && it->second != value) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is {}, but {} needs {}", path, it->second, why, value));
  }
}

void Writer::set_param(std::string_view name_or_path, int64_t value) {
  set_param_value(find_param(name_or_path), value, "set_param");
}

void Writer::write(std::string_view path, const NDArray& data) {
  const NodeId node = check_shape(path, data.shape().dims());
  inputs_.push_back({node, data, nullptr, data.dtype(), data.shape().dims()});
}

void Writer::write_from(std::string_view path, const model::Node& array) {
  if (array.kind != model::NodeKind::kArray || !array.data) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the source is not a readable array{}", std::string(path),
                            array.error.empty() ? "" : ": " + array.error));
  }
  const NodeId node = check_shape(path, array.shape);
  inputs_.push_back({node, NDArray(), array.data, array.dtype, array.shape});
}

NodeId Writer::check_shape(std::string_view path, const std::vector<int64_t>& shape) {
  const NodeId node = layout_.find(path);
  if (node == kNone || layout_.nodes[node].kind != NodeKind::kData) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is not a data item of the layout", std::string(path)));
  }
  const Node& n = layout_.nodes[node];
  size_t axis = 0;
  for (const Dim& d : layout_.dims_of(n.dims)) {
    int64_t value = d.literal;
    if (d.kind == Dim::Kind::kParam) {
      const Param& p = layout_.params[d.param];
      auto known = params_.find(d.param);
      if (known == params_.end() && p.kind == ParamKind::kDynamic) {
        if (axis >= shape.size()) break;  // the rank check below names the problem
        auto v = invert_dimension(shape[axis], d.adjust);
        if (!v) {
          throw Error(
              ErrorCategory::kUsage,
              fmt::format("{}: no value of {} gives dimension {} the length {}", std::string(path),
                          param_path(layout_, d.param), axis, shape[axis]));
        }
        set_param_value(d.param, *v, fmt::format("{} (dimension {})", std::string(path), axis));
        ++axis;
        continue;
      }
      value = known != params_.end() ? known->second : p.value;
      if (value > 0 && d.adjust != 0) value = std::max<int64_t>(0, value + d.adjust);
    }
    if (value < 0) continue;  // the dimension disappears
    if (axis < shape.size() && shape[axis] != value) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: dimension {} of the array is {}, the layout says {}",
                              std::string(path), axis, shape[axis], value));
    }
    ++axis;
  }
  if (axis > shape.size()) {
    throw Error(ErrorCategory::kUsage, fmt::format("{}: the array has rank {}, the layout more",
                                                   std::string(path), shape.size()));
  }
  return node;
}

uint64_t Writer::commit() {
  // 1. Every parameter the layout needs, as the reader will compute it.
  BindOptions bind;
  bind.default_order = options_.order;
  bind.signature_unread = true;
  bind.params_absent = options_.params_absent;
  for (ParamId p = 0; p < layout_.params.size(); ++p) {
    const Param& param = layout_.params[p];
    if (param.group == kNone || param.kind != ParamKind::kDynamic) continue;
    if (!params_.count(p)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("parameter {} has no value: set it, or write an array shaped by it",
                              param_path(layout_, p)));
    }
  }
  bind.param_values = params_;
  Binding binding(layout_, io::zero_source(kPlanningSize), bind);

  // 2. Where everything goes; the file ends after the last item.
  uint64_t end = 0;
  for (NodeId n = 0; n < layout_.nodes.size(); ++n) {
    if (layout_.nodes[n].kind != NodeKind::kData) continue;
    const BoundArray a = binding.array(n);
    if (a.byte_size > 0) end = std::max(end, a.address + a.byte_size);
  }
  std::vector<std::pair<uint64_t, std::vector<unsigned char>>> small;  // parameters, signature
  for (ParamId p = 0; p < layout_.params.size(); ++p) {
    auto address = binding.param_address(p);
    if (!address) continue;
    const DType type = *binding.param_dtype(p);
    const uint64_t value = static_cast<uint64_t>(params_.at(p));
    std::vector<unsigned char> bytes(type.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      const size_t shift = 8 * (type.byte_order() == ByteOrder::kBig ? bytes.size() - 1 - i : i);
      bytes[i] = static_cast<unsigned char>(value >> shift);
    }
    end = std::max(end, *address + bytes.size());
    small.emplace_back(*address, std::move(bytes));
  }
  if (auto address = binding.signature_address()) {
    std::vector<unsigned char> bytes(8);
    signature_bytes(options_.order, bytes.data());
    end = std::max(end, *address + 8);
    small.emplace_back(*address, std::move(bytes));
  }

  // 3. Check every array against its item before writing anything.
  uint64_t total = 0;
  std::vector<BoundArray> places;
  for (const Input& input : inputs_) {
    const std::string path = layout_.path(input.node);
    BoundArray where = binding.array(input.node);
    const DType native =
        input.dtype.needs_swap() ? input.dtype.with_byte_order(native_byte_order()) : input.dtype;
    const DType expected =
        where.dtype.needs_swap() ? where.dtype.with_byte_order(native_byte_order()) : where.dtype;
    if (!(native == expected)) {
      throw Error(ErrorCategory::kType,
                  fmt::format("{} is declared {}, the array given is {}", path,
                              where.dtype.to_string(), input.dtype.to_string()));
    }
    if (input.shape != where.shape) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{} has shape {} in the layout, the array given {}", path,
                              Shape(where.shape).to_string(), Shape(input.shape).to_string()));
    }
    total += where.byte_size;
    places.push_back(std::move(where));
  }

  // 4. Write: a temporary file, renamed into place only when complete.
  io::AtomicFile file(path_);
  file.resize(end);
  for (const auto& [address, bytes] : small) file.write_at(address, bytes.data(), bytes.size());
  std::vector<unsigned char> buffer;
  uint64_t done = 0;
  // Native bytes of one item -> the file, in chunks, swapped to the item's order on the way.
  auto put = [&](const BoundArray& where, uint64_t offset, const unsigned char* src, uint64_t n) {
    const uint64_t element = where.dtype.size();
    const uint64_t per_chunk = std::max<uint64_t>(1, kChunk / element) * element;
    for (uint64_t off = 0; off < n; off += per_chunk) {
      const uint64_t m = std::min(per_chunk, n - off);
      if (where.dtype.needs_swap()) {
        buffer.assign(src + off, src + off + m);
        swap_elements(buffer.data(), m / element, where.dtype);
        file.write_at(where.address + offset + off, buffer.data(), m);
      } else {
        file.write_at(where.address + offset + off, src + off, m);
      }
      done += m;
      if (options_.progress) options_.progress(done, total);
    }
  };
  for (size_t k = 0; k < inputs_.size(); ++k) {
    const Input& input = inputs_[k];
    const BoundArray& where = places[k];
    if (where.byte_size == 0) continue;
    if (!input.source) {
      const NDArray& given = input.data;
      NDArray data =
          given.is_c_contiguous() && !given.dtype().needs_swap() ? given : given.to_native();
      put(where, 0, static_cast<const unsigned char*>(data.data()), where.byte_size);
      continue;
    }
    // Another file's array: whole leading-dimension slabs of about kChunk bytes at a time.
    const std::vector<int64_t>& shape = where.shape;
    if (shape.empty()) {
      NDArray block = input.source->read().to_native();
      put(where, 0, static_cast<const unsigned char*>(block.data()), where.byte_size);
      continue;
    }
    const uint64_t row = where.byte_size / static_cast<uint64_t>(shape[0]);
    const auto rows =
        static_cast<int64_t>(std::max<uint64_t>(1, kChunk / std::max<uint64_t>(row, 1)));
    for (int64_t r = 0; r < shape[0]; r += rows) {
      Hyperslab slab;
      slab.start.assign(shape.size(), 0);
      slab.count = shape;
      slab.start[0] = r;
      slab.count[0] = std::min(rows, shape[0] - r);
      NDArray block = input.source->read(slab);
      if (block.dtype().needs_swap() || !block.is_c_contiguous()) block = block.to_native();
      put(where, static_cast<uint64_t>(r) * row, static_cast<const unsigned char*>(block.data()),
          static_cast<uint64_t>(slab.count[0]) * row);
    }
  }
  file.commit(options_.fsync);
  committed_ = true;
  if (options_.write_layout) {
    write_file_atomically(layout_path_for(path_), emit_layout(layout_), options_.fsync);
  }
  return end;
}

}  // namespace dudley::layout
