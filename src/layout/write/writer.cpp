// The Writer's front half: what the caller gives (parameters, arrays, regions, instances,
// pointees, list items), checked against the layout as it arrives so that an error names the
// call that caused it. commit() (writer_commit.cpp) places and writes everything.
#include "dudley/layout/write/writer.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/layout/bind/binder.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "writer_support.hpp"

namespace dudley::layout {

namespace {

bool order_unspecified(const TypeRef& ref) {
  return ref.kind == TypeRef::Kind::kPrimitive && ref.order == ByteOrder::kUnspecified &&
         primitive_size(ref.primitive) > 1;
}

}  // namespace

std::string layout_path_for(const std::string& data_path) {
  return std::filesystem::path(data_path).replace_extension(".dud").string();
}

std::vector<int64_t> element_shape(const DType& type, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out = shape;
  // A string of one code unit in an array is ambiguous (units or strings of one?) and is
  // taken as units; a single string (rank 0) always brings its length, whatever it is.
  if (type.kind() == DTypeKind::kText && (type.text_length() > 1 || shape.empty())) {
    out.push_back(static_cast<int64_t>(type.text_length()));
  }
  return out;
}

void match_dims(std::span<const Dim> dims, const std::vector<int64_t>& shape,
                const std::string& what, const DimResolver& resolve) {
  size_t axis = 0;
  for (const Dim& d : dims) {
    DimValue v = d.kind == Dim::Kind::kLiteral ? DimValue::known(d.literal) : resolve(d);
    if (v.state == DimValue::kUnchecked) {
      ++axis;
      continue;
    }
    if (v.state == DimValue::kUnknown) {
      if (axis >= shape.size()) break;  // the rank check below names the problem
      const int64_t extent = shape[axis];
      // The parameter value a dimension of this extent needs, given its suffixes [C14].
      const int64_t value = extent == 0 ? 0 : extent - d.adjust;
      if (extent != 0 && value <= 0) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{}: no value of {} gives dimension {} the length {}", what, v.name,
                                axis, extent));
      }
      v.assign(value, fmt::format("{} (dimension {})", what, axis));
      ++axis;
      continue;
    }
    int64_t value = v.value;
    if (d.kind != Dim::Kind::kLiteral && value > 0 && d.adjust != 0) {
      value = std::max<int64_t>(0, value + d.adjust);
    }
    if (value < 0) continue;  // the dimension disappears
    if (axis < shape.size() && shape[axis] != value) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: dimension {} of the array is {}, the layout says {}", what, axis,
                              shape[axis], value));
    }
    ++axis;
  }
  if (axis > shape.size()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the array has rank {}, the layout more", what, shape.size()));
  }
}

std::string param_path(const Layout& l, ParamId p) {
  if (l.params[p].group == kNone) return std::string(l.name(l.params[p].name));
  const std::string group = l.path(l.params[p].group);
  return (group == "/" ? "" : group) + "/" + std::string(l.name(l.params[p].name));
}

Writer::Writer(const Layout& layout, std::string data_path, WriteOptions options)
    : layout_(&layout), path_(std::move(data_path)), options_(std::move(options)) {
  if (options_.order != ByteOrder::kLittle && options_.order != ByteOrder::kBig) {
    throw Error(ErrorCategory::kUsage, "the write order must be little or big");
  }
  if (layout.template_directive) {  // [C22]: refuse a template that breaks its rules
    std::vector<Diagnostic> problems;
    check_template_rules(layout, problems);
    if (!problems.empty()) {
      throw Error(ErrorCategory::kSemantic,
                  fmt::format("the layout is a !TEMPLATE but breaks its rules: {} (line {})",
                              problems.front().message, problems.front().line));
    }
  }
  if (options_.write_layout && std::filesystem::path(path_).extension() == ".dud") {
    throw Error(ErrorCategory::kUsage, "the data file may not end in .dud: its layout goes there",
                Location::file(path_));
  }
  // A file is self-describing only if its reader can know every byte order.
  if (!layout.signature) {
    const bool any = std::any_of(layout.nodes.begin(), layout.nodes.end(),
                                 [&](const Node& n) { return order_unspecified(n.type); }) ||
                     std::any_of(layout.pointees.begin(), layout.pointees.end(),
                                 [&](const Pointee& p) { return order_unspecified(p.type); }) ||
                     std::any_of(layout.params.begin(), layout.params.end(), [&](const Param& p) {
                       return p.kind == ParamKind::kDynamic && order_unspecified(p.type);
                     });
    if (any) {
      throw Error(ErrorCategory::kUsage,
                  "the layout has multi-byte types without a byte order and no !DUDLEY "
                  "signature, so no reader could know the order written: add "
                  "'!DUDLEY := S1[8]' at its start, or '<' / '>' prefixes");
    }
  }
  appended_from_ = static_cast<uint32_t>(layout.statements.size());
}

ParamId Writer::find_param(std::string_view key) const {
  ParamId found = kNone;
  std::set<std::string> paths;  // of the parameters matching a bare name
  const bool by_path = key.find('/') != std::string_view::npos;
  for (ParamId p = 0; p < layout_->params.size(); ++p) {
    if (layout_->params[p].group == kNone) continue;  // struct and block parameters
    const std::string path = param_path(*layout_, p);
    if (by_path ? path == key : layout_->name(layout_->params[p].name) == key) {
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
  const Param& param = layout_->params[p];
  const std::string path = param_path(*layout_, p);
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

// A group parameter's value as the writer knows it so far, or the means to set it.
DimValue Writer::group_dim(const Dim& d) {
  if (d.kind != Dim::Kind::kParam) return DimValue::unchecked();
  const Param& p = layout_->params[d.param];
  auto known = params_.find(d.param);
  if (known != params_.end()) return DimValue::known(known->second);
  if (p.kind == ParamKind::kFixed) return DimValue::known(p.value);
  DimValue v = DimValue::unchecked();
  v.state = DimValue::kUnknown;
  v.name = param_path(*layout_, d.param);
  v.assign = [this, p = d.param](int64_t value, const std::string& why) {
    set_param_value(p, value, why);
  };
  return v;
}

NodeId Writer::node_at(std::string_view path) {
  if (paths_.empty()) {
    const Layout& l = *layout_;
    for (NodeId n = 1; n < l.nodes.size(); ++n) {
      if (l.nodes[n].kind == NodeKind::kMember) continue;
      paths_.emplace(l.path(n), n);
    }
  }
  // Paths as written by users may carry a trailing or doubled '/': those go the slow way.
  auto it = paths_.find(std::string(path));
  return it != paths_.end() ? it->second : layout_->find(path);
}

std::vector<std::string> Writer::unwritten() const {
  const Layout& l = *layout_;
  std::vector<bool> given(l.nodes.size(), false);
  for (const Input& in : inputs_) {
    if (in.node != kNone && in.node < given.size()) given[in.node] = true;
  }
  for (const auto& entry : instance_inputs_) {
    if (entry.first < given.size()) given[entry.first] = true;
  }
  std::vector<std::string> out;
  for (NodeId n = 1; n < l.nodes.size(); ++n) {
    if (l.nodes[n].kind == NodeKind::kData && !given[n]) out.push_back(l.path(n));
  }
  return out;
}

NodeId Writer::check_shape(std::string_view path, const std::vector<int64_t>& shape) {
  const NodeId node = node_at(path);
  if (node == kNone || layout_->nodes[node].kind != NodeKind::kData) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is not a data item of the layout", std::string(path)));
  }
  const Node& n = layout_->nodes[node];
  if (varying_type(*layout_, n.type)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: its instances differ in size: give them with write_instances()",
                            std::string(path)));
  }
  match_dims(layout_->dims_of(n.dims), shape, std::string(path),
             [&](const Dim& d) { return group_dim(d); });
  return node;
}

Writer::Declared Writer::declared(std::string_view path) {
  const NodeId node = node_at(path);
  if (node == kNone || layout_->nodes[node].kind != NodeKind::kData) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is not a data item of the layout", std::string(path)));
  }
  const Node& n = layout_->nodes[node];
  Declared out;
  if (n.type.kind == TypeRef::Kind::kPrimitive) {
    const ByteOrder order = n.type.order == ByteOrder::kUnspecified ? options_.order : n.type.order;
    out.dtype = primitive_dtype(n.type.primitive, order);
  }
  std::vector<int64_t> shape;
  for (const Dim& d : layout_->dims_of(n.dims)) {
    if (d.kind == Dim::Kind::kFreeName) return out;
    const DimValue v = d.kind == Dim::Kind::kLiteral ? DimValue::known(d.literal) : group_dim(d);
    if (v.state != DimValue::kKnown) return out;
    int64_t value = v.value;
    // As match_dims reads a dimension's suffixes [C14].
    if (d.kind != Dim::Kind::kLiteral && value > 0 && d.adjust != 0) {
      value = std::max<int64_t>(0, value + d.adjust);
    }
    if (value >= 0) shape.push_back(value);
  }
  out.shape = std::move(shape);
  return out;
}

void Writer::write(std::string_view path, const NDArray& data) {
  const NodeId node = check_shape(path, element_shape(data.dtype(), data.shape().dims()));
  inputs_.push_back({node, data, nullptr, data.dtype(), data.shape().dims(), {}, kNone});
}

void Writer::write(std::string_view path, const NDArray& data, const Hyperslab& region) {
  const NodeId node = node_at(path);
  if (node == kNone || layout_->nodes[node].kind != NodeKind::kData ||
      varying_type(*layout_, layout_->nodes[node].type)) {
    throw Error(ErrorCategory::kUsage, fmt::format("{} is not a data item of fixed-size elements "
                                                   "(a region cannot be written there)",
                                                   std::string(path)));
  }
  const std::vector<int64_t>& dims = data.shape().dims();
  // The data holds the region's elements in C order: shaped by its counts, or by numpy's
  // result shape when single indexes dropped dimensions.
  if (region.start.size() != region.count.size() ||
      (!region.stride.empty() && region.stride.size() != region.count.size()) ||
      (region.count != dims && region.result_shape() != dims)) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{}: the region's counts {} must be the array's shape {}", std::string(path),
                    Shape(region.count).to_string(), data.shape().to_string()));
  }
  inputs_.push_back({node, data, nullptr, data.dtype(), dims, region, kNone});
}

void Writer::write_from(std::string_view path, const model::Node& array) {
  if (array.kind != model::NodeKind::kArray || !array.data) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the source is not a readable array{}", std::string(path),
                            array.error.empty() ? "" : ": " + array.error.message));
  }
  const NodeId node = check_shape(path, element_shape(array.dtype, array.shape));
  inputs_.push_back({node, NDArray(), array.data, array.dtype, array.shape, {}, kNone});
}

void Writer::write_pointee(uint64_t key, const NDArray& data) {
  const Layout& l = *layout_;
  for (uint32_t i = 0; i < l.pointees.size(); ++i) {
    if (l.pointees[i].key != key) continue;
    const std::string what = fmt::format("pointee {}", key);
    match_dims(l.dims_of(l.pointees[i].dims), element_shape(data.dtype(), data.shape().dims()),
               what, [&](const Dim& d) { return group_dim(d); });
    inputs_.push_back({kNone, data, nullptr, data.dtype(), data.shape().dims(), {}, i});
    return;
  }
  throw Error(ErrorCategory::kUsage, fmt::format("the layout declares no pointee {}", key));
}

void Writer::write_instances(std::string_view path, const std::vector<NDArray>& arrays) {
  std::vector<Instance> instances(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) instances[i].members.emplace("", arrays[i]);
  write_instances(path, std::move(instances));
}

// An item of instances with one dimension takes the number of instances given as its length
// (setting a parameter not known yet, or checking a known one); for more dimensions the shape
// must be known and commit() checks the count.
static void infer_count(std::span<const Dim> dims, size_t count, const std::string& what,
                        const DimResolver& resolve) {
  size_t rank = 0;  // dimensions that remain (a negative one disappears [C14])
  for (const Dim& d : dims) {
    const DimValue v = d.kind == Dim::Kind::kLiteral ? DimValue::known(d.literal) : resolve(d);
    if (v.state != DimValue::kKnown || v.value >= 0) ++rank;
  }
  if (rank == 1) {  // sets an unknown parameter, or checks a known one
    match_dims(dims, {static_cast<int64_t>(count)}, what + " (number of instances)", resolve);
  }
}

// A parameter declared by the struct `type` itself, or by the parameter block `block` of a
// heterogeneous array's elements: its value lives in each instance.
static bool instance_local(const Layout& l, ParamId p, TypeId type, TypeId block) {
  const Param& param = l.params[p];
  return param.group == kNone && (param.owner == type || (block != kNone && param.owner == block));
}

void Writer::collect_instance(NodeId item, TypeId type_id, const Instance& instance,
                              const std::vector<uint64_t>& path, const std::string& what,
                              InstanceInput& input) {
  const Layout& l = *layout_;
  const TypeDef& type = l.types[type_id];
  const TypeId block = path.size() == 1 ? type.block : kNone;  // only top-level elements
  std::map<ParamId, int64_t>& values = input.params[path];
  auto set_local = [&](ParamId p, int64_t value, const std::string& why) {
    auto [it, inserted] = values.emplace(p, value);
    if (!inserted && it->second != value) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: parameter {} is {}, but {} needs {}", what,
                              l.name(l.params[p].name), it->second, why, value));
    }
  };
  auto resolve = [&](const Dim& d) -> DimValue {
    if (d.kind != Dim::Kind::kParam) return DimValue::unchecked();
    if (!instance_local(l, d.param, type_id, block)) return group_dim(d);
    const Param& param = l.params[d.param];
    if (param.kind == ParamKind::kFixed) return DimValue::known(param.value);
    auto known = values.find(d.param);
    if (known != values.end()) return DimValue::known(known->second);
    DimValue v = DimValue::unchecked();
    v.state = DimValue::kUnknown;
    v.name = std::string(l.name(param.name));
    v.assign = [&, p = d.param](int64_t value, const std::string& why) {
      set_local(p, value, why);
    };
    return v;
  };
  for (const auto& [name, value] : instance.params) {
    ParamId found = kNone;
    for (ParamId p = 0; p < l.params.size(); ++p) {
      if (instance_local(l, p, type_id, block) && l.name(l.params[p].name) == name) found = p;
    }
    if (found == kNone) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: the instance has no parameter {}", what, name));
    }
    set_local(found, value, "its params");
  }
  auto member_named = [&](const std::string& name) {
    for (const StructEntry& e : type.body) {
      if (e.kind == StructEntry::Kind::kMember && l.name(l.nodes[e.index].name) == name) {
        return e.index;
      }
    }
    throw Error(ErrorCategory::kUsage, fmt::format("{}: the type has no member '{}'", what, name));
  };
  for (const auto& [name, array] : instance.members) {
    const NodeId member = member_named(name);
    if (varying_type(l, l.nodes[member].type)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: member '{}' has instances of its own: give them in `nested`",
                              what, name));
    }
    match_dims(l.dims_of(l.nodes[member].dims), element_shape(array.dtype(), array.shape().dims()),
               fmt::format("{} member '{}'", what, name), resolve);
  }
  for (const auto& [name, nested] : instance.nested) {
    const NodeId member = member_named(name);
    if (!varying_type(l, l.nodes[member].type)) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: member '{}' is an array: give it in `members`", what, name));
    }
    const std::string inner = fmt::format("{} member '{}'", what, name);
    infer_count(l.dims_of(l.nodes[member].dims), nested.size(), inner, resolve);
    for (size_t j = 0; j < nested.size(); ++j) {
      std::vector<uint64_t> nested_path = path;
      nested_path.push_back(member);
      nested_path.push_back(j);
      collect_instance(item, l.nodes[member].type.user, nested[j], nested_path,
                       fmt::format("{} instance {}", inner, j), input);
    }
  }
}

void Writer::write_instances(std::string_view path, std::vector<Instance> instances) {
  const Layout& l = *layout_;
  const NodeId node = node_at(path);
  if (node == kNone || l.nodes[node].kind != NodeKind::kData ||
      !varying_type(l, l.nodes[node].type)) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is not a data item whose instances differ in size: use write()",
                            std::string(path)));
  }
  const std::string item(path);
  const TypeId type_id = l.nodes[node].type.user;
  const TypeDef& type = l.types[type_id];
  // The item's shape of instances: a heterogeneous array takes its parameter block's.
  const Span shape_dims = type.kind == TypeKind::kHeteroBody && type.block != kNone
                              ? l.types[type.block].dims
                              : l.nodes[node].dims;
  infer_count(l.dims_of(shape_dims), instances.size(), item,
              [&](const Dim& d) { return group_dim(d); });
  InstanceInput input;
  for (size_t i = 0; i < instances.size(); ++i) {
    collect_instance(node, type_id, instances[i], {i}, fmt::format("{} instance {}", item, i),
                     input);
  }
  input.instances = std::move(instances);
  instance_inputs_[node] = std::move(input);
}

std::string Writer::append(std::string_view list_path, const NDArray& data) {
  const NodeId list = layout_->find(list_path);
  if (list == kNone || layout_->nodes[list].kind != NodeKind::kList ||
      layout_->nodes[list].name == kNone) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is not a named list of the layout", std::string(list_path)));
  }
  if (options_.shared_layout) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: a family member cannot append list items (its layout is the "
                            "family's); declare the items in the layout",
                            std::string(list_path)));
  }
  const std::optional<Primitive> primitive = primitive_for(data.dtype());
  if (!primitive) {
    throw Error(ErrorCategory::kType,
                fmt::format("{}: an appended item needs a primitive element type, not {}",
                            std::string(list_path), data.dtype().to_string()));
  }
  if (!own_layout_) {
    own_layout_ = std::make_unique<Layout>(*layout_);
    layout_ = own_layout_.get();
  }
  Layout& l = *own_layout_;
  Node item;
  item.kind = NodeKind::kData;
  item.parent = list;
  item.depth = l.nodes[list].depth + 1;
  item.type.kind = TypeRef::Kind::kPrimitive;
  item.type.primitive = *primitive;
  // An explicit order: the item reads right even where the layout has no signature.
  if (primitive_size(*primitive) > 1) item.type.order = options_.order;
  const std::vector<int64_t> dims = element_shape(data.dtype(), data.shape().dims());
  item.dims = {static_cast<uint32_t>(l.dims.size()), static_cast<uint32_t>(dims.size())};
  for (int64_t extent : dims) {
    Dim d;
    d.literal = extent;
    l.dims.push_back(d);
  }
  const NodeId id = l.add_node(item);
  l.statements.push_back({Statement::Kind::kData, list, id});
  inputs_.push_back({id, data, nullptr, data.dtype(), data.shape().dims(), {}, kNone});
  std::string path = l.path(id);
  if (!paths_.empty()) paths_.emplace(path, id);
  return path;
}

}  // namespace dudley::layout
