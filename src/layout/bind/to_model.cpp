#include "dudley/layout/bind/to_model.hpp"

#include "dudley/core/path.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "dudley/core/file_io.hpp"
#include "dudley/io/read_rule.hpp"
#include "dudley/layout/embedded.hpp"
#include "dudley/layout/write/pair_record.hpp"

#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"

#include <fmt/format.h>
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

namespace {

// An item's `#@` attributes as the model's, in their order, read now (the parser keeps
// their text). One whose text is no attribute, or a name given twice, is unreadable: named
// with its place in the layout, never dropped.
model::Attributes model_attributes(
    const Layout& l, Span span,
    std::vector<std::pair<std::string, model::NodeError>>* unreadable = nullptr) {
  model::Attributes out;
  for (const AttributeSource& a : l.attributes_of(span)) {
    ParsedAttribute read;
    AttributeTextError mistake;
    const std::string where = l.source_name.empty() ? std::string("layout") : l.source_name;
    if (!l.read_attribute(a, read, mistake)) {
      if (unreadable) {
        const std::string_view text = l.attribute_source(a);
        const uint32_t column = a.pos.column + static_cast<uint32_t>(mistake.offset);
        unreadable->push_back(
            {std::string(text.substr(0, std::min(text.find(':'), text.size()))),
             model::NodeError::from(Error(ErrorCategory::kSyntax, "attribute: " + mistake.message,
                                          Location::text(where, a.pos.line, column)))});
      }
      continue;
    }
    if (out.find(read.name)) {
      if (unreadable) {
        unreadable->push_back(
            {read.name, model::NodeError::from(Error(
                            ErrorCategory::kSyntax,
                            fmt::format("attribute '{}' is given twice to one item", read.name),
                            Location::text(where, a.pos.line, a.pos.column)))});
      }
      continue;
    }
    const auto* text = std::get_if<model::Value>(&read.value);
    if (read.text_type && text && text->is<std::string>()) {
      out.set_text(read.name, text->as<std::string>(), *read.text_type);  // `S1[8] "K"`
    } else {
      out.set(read.name, std::move(read.value));
    }
  }
  return out;
}

// An array whose shape names parameters (`tas = f4[time, lat]`) has those dimension names
// (model::well_known::kDimensionNames: null for a dimension given as a number or with a
// suffix), as Zarr's dimension_names and netCDF's dimensions give them to xarray. A
// `#@ dimension_names` of the layout's own is kept as it is.
void name_dimensions(const Layout& l, const Node& decl, model::Node& out) {
  if (out.attributes.find(model::well_known::kDimensionNames)) return;
  const auto dims = l.dims_of(decl.dims);
  if (dims.size() != out.shape.size()) return;  // text: its last dimension counts units
  model::ValueList names;
  bool any = false;
  for (const Dim& d : dims) {
    if (d.kind == Dim::Kind::kParam && d.adjust == 0 && d.param != kNone) {
      names.emplace_back(std::string(l.name(l.params[d.param].name)));
      any = true;
    } else {
      names.emplace_back();
    }
  }
  if (any) out.attributes.set(model::well_known::kDimensionNames, model::Value(std::move(names)));
}

// A parameter's attributes; those that cannot be read are listed with its group's, named
// "PARAM.NAME".
model::Attributes param_attributes(const Layout& l, ParamId p, model::Node& group) {
  std::vector<std::pair<std::string, model::NodeError>> unreadable;
  model::Attributes out = model_attributes(l, l.params[p].attributes, &unreadable);
  for (auto& [name, error] : unreadable) {
    group.unreadable_attributes.push_back(
        {fmt::format("{}.{}", l.name(l.params[p].name), name), std::move(error)});
  }
  return out;
}

// Shared by every array of one tree: the layout, the bytes, and the (lazy) binding.
// A layout with its compiled plan. Members of a family are opened one after the other with
// one layout: the last one read is kept, so each member after the first costs its binding,
// not a parse and a plan.
// A group's members by name, built the first time a tree of wanted paths needs it: a member
// then costs a lookup, not a walk over every member of its group (a layout of 10^4 arrays
// read for one of them, in each of 10^3 files).
class MembersByName {
 public:
  explicit MembersByName(const Layout& layout) : layout_(layout) {}

  /// The members of `group` named `name`, in declaration order (a name may be declared
  /// again).
  const std::vector<NodeId>& find(NodeId group, NameId name) const {
    std::call_once(built_, [this] {
      for (NodeId n = 0; n < layout_.nodes.size(); ++n) {
        const Node& node = layout_.nodes[n];
        if (node.parent != kNone && node.name != kNone) {
          map_[key(node.parent, node.name)].push_back(n);
        }
      }
    });
    static const std::vector<NodeId> none;
    auto it = map_.find(key(group, name));
    return it == map_.end() ? none : it->second;
  }

 private:
  static uint64_t key(NodeId group, NameId name) { return (uint64_t{group} << 32) | name; }
  const Layout& layout_;
  mutable std::once_flag built_;
  mutable std::unordered_map<uint64_t, std::vector<NodeId>> map_;
};

struct CompiledLayout {
  std::shared_ptr<const Layout> layout;
  std::shared_ptr<const BindPlan> plan;
  std::shared_ptr<const MembersByName> members;
};

struct Context {
  std::shared_ptr<const Layout> layout;
  std::shared_ptr<const BindPlan> plan;
  std::shared_ptr<const MembersByName> members;
  std::shared_ptr<io::ByteSource> source;
  Binding binding;
  /// Paths the caller will look at (empty: all): members elsewhere are left out.
  std::vector<std::string> wanted;
  Context(CompiledLayout c, std::shared_ptr<io::ByteSource> s, BindOptions o)
      : layout(std::move(c.layout)),
        plan(std::move(c.plan)),
        members(std::move(c.members)),
        source(std::move(s)),
        binding(*plan, source, std::move(o)) {}

  /// Whether the member at `path` leads to a wanted path or lies below one.
  bool relevant(const std::string& path) const {
    if (wanted.empty()) return true;
    for (const std::string& w : wanted) {
      if (related_paths(path, w)) return true;
    }
    return false;
  }
};

CompiledLayout compile(std::shared_ptr<const Layout> layout, bool params_absent) {
  auto plan = std::make_shared<const BindPlan>(*layout, params_absent);
  auto members = std::make_shared<const MembersByName>(*layout);
  return {std::move(layout), std::move(plan), std::move(members)};
}

// The layout file `name` compiled, and its text. The last one is kept while the file is
// the same one, unchanged (device, inode, size, modification time): the members of a
// family opened one after the other with one layout then cost a stat each, not a read, a
// parse and a plan.
struct LayoutFile {
  CompiledLayout compiled;
  std::shared_ptr<const std::string> text;
};

LayoutFile layout_file(const std::string& name, bool params_absent) {
  static std::mutex mutex;
  static std::string last_name;
  static struct stat last_stat {};
  static bool last_absent = false;
  static LayoutFile last;
  struct stat st {};
  const bool known = ::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  {
    std::lock_guard lock(mutex);
    if (known && last.text && last_name == name && last_absent == params_absent &&
        st.st_dev == last_stat.st_dev && st.st_ino == last_stat.st_ino &&
        st.st_size == last_stat.st_size && st.st_mtim.tv_sec == last_stat.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == last_stat.st_mtim.tv_nsec) {
      return last;
    }
  }
  auto text = std::make_shared<const std::string>(read_text_file(name));
  LayoutFile made{
      compile(std::make_shared<const Layout>(layout_from_text(*text, name)), params_absent), text};
  std::lock_guard lock(mutex);
  if (known) {
    last = made;
    last_name = name;
    last_stat = st;
    last_absent = params_absent;
  }
  return made;
}

class DudleyArray final : public model::ArraySource {
 public:
  DudleyArray(std::shared_ptr<Context> context, NodeId node)
      : context_(std::move(context)), node_(node) {}
  NDArray read() override { return read_array(context_->binding, node_); }
  NDArray read(const Hyperslab& slab) override {
    return read_array(context_->binding, node_, slab);
  }
  void read_into(const Hyperslab& slab, void* out) override {
    read_array_into(context_->binding, node_, slab, out);
  }
  std::optional<StoredBytes> stored_bytes() override {
    const BoundArray a = context_->binding.array(node_);
    return StoredBytes{context_->source, a.address, a.byte_size, a.dtype};
  }

 private:
  std::shared_ptr<Context> context_;
  NodeId node_;
};

// A member of a struct instance, located by the binding (no node of its own to read by).
class DudleyBoundArray final : public model::ArraySource {
 public:
  DudleyBoundArray(std::shared_ptr<Context> context, BoundArray array)
      : context_(std::move(context)), array_(std::move(array)) {}
  NDArray read() override { return read_bound(*context_->source, array_); }
  NDArray read(const Hyperslab& slab) override {
    return read_bound(*context_->source, array_, slab);
  }
  void read_into(const Hyperslab& slab, void* out) override {
    read_bound_into(*context_->source, array_, slab, out);
  }
  std::optional<StoredBytes> stored_bytes() override {
    return StoredBytes{context_->source, array_.address, array_.byte_size, array_.dtype};
  }

 private:
  std::shared_ptr<Context> context_;
  BoundArray array_;
};

// A Dudley array is one run of bytes at its address.
model::Storage contiguous(const BoundArray& a) {
  model::Storage s;
  s.kind = model::Storage::Kind::kContiguous;
  s.offset = a.address;
  s.size = a.byte_size;
  s.order = a.dtype.byte_order();
  return s;
}

std::unique_ptr<model::Node> bound_array_node(const std::shared_ptr<Context>& context,
                                              const BoundArray& a) {
  auto out = std::make_unique<model::Node>();
  out->kind = model::NodeKind::kArray;
  out->dtype = a.dtype;
  out->shape = a.shape;
  out->storage = contiguous(a);
  out->data = std::make_shared<DudleyBoundArray>(context, a);
  return out;
}

std::unique_ptr<model::Node> instances_node(const std::shared_ptr<Context>& context, TypeId type,
                                            const std::vector<int64_t>& shape,
                                            const std::vector<BoundInstance>& instances);

// One instance: a typedef (a counted array) is presented as its member [C18]; any other
// struct, and an element of a heterogeneous array, as a group of its members with the
// instance's parameters.
std::unique_ptr<model::Node> instance_node(const std::shared_ptr<Context>& context, TypeId type,
                                           const BoundInstance& instance) {
  const Layout& l = *context->layout;
  auto member_node = [&](const BoundInstance::Member& m) {
    const Node& decl = l.nodes[m.node];
    auto node = m.varies ? instances_node(context, decl.type.user, m.shape, m.instances)
                         : bound_array_node(context, m.array);
    node->name = std::string(l.name(decl.name));
    node->doc = std::string(l.doc(decl.doc));
    node->attributes = model_attributes(l, decl.attributes, &node->unreadable_attributes);
    return node;
  };
  if (l.types[type].is_typedef(l.nodes) && instance.members.size() == 1) {
    return member_node(instance.members[0]);
  }
  auto out = std::make_unique<model::Node>();
  out->kind = model::NodeKind::kGroup;
  out->attributes = model_attributes(l, l.types[type].attributes, &out->unreadable_attributes);
  for (const auto& p : instance.params) {
    model::Parameter param;
    param.name = std::string(l.name(l.params[p.param].name));
    param.doc = std::string(l.doc(l.params[p.param].doc));
    param.attributes = param_attributes(l, p.param, *out);
    param.value = p.value;
    param.address = p.address;
    if (p.address) param.dtype = context->binding.param_dtype(p.param);
    out->params.push_back(std::move(param));
  }
  for (const auto& m : instance.members) out->children.push_back(member_node(m));
  return out;
}

// Instances in C order as nested lists, one level per dimension (a scalar item is its one
// instance).
std::unique_ptr<model::Node> instances_node(const std::shared_ptr<Context>& context, TypeId type,
                                            const std::vector<int64_t>& shape,
                                            const std::vector<BoundInstance>& instances) {
  struct Builder {
    const std::shared_ptr<Context>& context;
    TypeId type;
    const std::vector<int64_t>& shape;
    const std::vector<BoundInstance>& instances;
    size_t next = 0;
    std::unique_ptr<model::Node> build(size_t dim) {
      if (dim == shape.size()) return instance_node(context, type, instances.at(next++));
      auto list = std::make_unique<model::Node>();
      list->kind = model::NodeKind::kList;
      for (int64_t i = 0; i < shape[dim]; ++i) list->children.push_back(build(dim + 1));
      return list;
    }
  };
  return Builder{context, type, shape, instances}.build(0);
}

std::unique_ptr<model::Node> error_node(const Error& e) {
  auto out = std::make_unique<model::Node>();
  out->kind = model::NodeKind::kArray;
  out->error = model::NodeError::from(e);
  return out;
}

// The instances of a top-level item whose instances vary, from dimension `dim` on, starting
// at instance `first` (C order): made one at a time by the binding when a reader walks them,
// so a count the layout claims costs nothing until items are asked for.
class InstanceItems final : public model::ItemSource {
 public:
  InstanceItems(std::shared_ptr<Context> context, NodeId node,
                std::shared_ptr<const std::vector<int64_t>> shape, size_t dim, uint64_t first)
      : context_(std::move(context)),
        node_(node),
        shape_(std::move(shape)),
        dim_(dim),
        first_(first) {
    // The binding has checked that the product of the whole shape fits in 64 bits.
    for (size_t d = dim_ + 1; d < shape_->size(); ++d) {
      stride_ *= static_cast<uint64_t>((*shape_)[d]);
    }
  }
  uint64_t size() const override { return static_cast<uint64_t>((*shape_)[dim_]); }
  std::unique_ptr<model::Node> item(uint64_t index) override {
    const uint64_t first = first_ + index * stride_;
    if (dim_ + 1 < shape_->size()) {
      auto list = std::make_unique<model::Node>();
      list->kind = model::NodeKind::kList;
      list->lazy = std::make_shared<InstanceItems>(context_, node_, shape_, dim_ + 1, first);
      return list;
    }
    try {
      const Layout& l = *context_->layout;
      return instance_node(context_, l.nodes[node_].type.user,
                           context_->binding.instance(node_, first));
    } catch (const Error& e) {
      return error_node(e);
    }
  }

 private:
  std::shared_ptr<Context> context_;
  NodeId node_;
  std::shared_ptr<const std::vector<int64_t>> shape_;
  size_t dim_;
  uint64_t first_;
  uint64_t stride_ = 1;
};

// A top-level item whose instances vary: a scalar item is its one instance; a shaped one, a
// list (one level per dimension) of instances made on demand.
std::unique_ptr<model::Node> varying_item_node(const std::shared_ptr<Context>& context, NodeId id) {
  try {
    const Layout& l = *context->layout;
    auto shape =
        std::make_shared<const std::vector<int64_t>>(context->binding.instance_shape_of(id));
    if (shape->empty()) {
      return instance_node(context, l.nodes[id].type.user, context->binding.instance(id, 0));
    }
    uint64_t count = 1;  // checked here, so that the lists' index arithmetic cannot wrap
    for (int64_t d : *shape) {
      auto m = checked_mul(count, static_cast<uint64_t>(d));
      if (!m) {
        throw Error(ErrorCategory::kData, fmt::format("{}: more than 2^64 instances", l.path(id)));
      }
      count = *m;
    }
    auto list = std::make_unique<model::Node>();
    list->kind = model::NodeKind::kList;
    list->lazy = std::make_shared<InstanceItems>(context, id, std::move(shape), 0, 0);
    return list;
  } catch (const Error& e) {
    return error_node(e);
  }
}

std::unique_ptr<model::Node> convert(const std::shared_ptr<Context>& context, NodeId id,
                                     const std::string& path) {
  const Layout& l = *context->layout;
  const Node& n = l.nodes[id];
  auto out = std::make_unique<model::Node>();
  out->name = std::string(l.name(n.name));
  out->doc = std::string(l.doc(n.doc));
  out->attributes = model_attributes(l, n.attributes, &out->unreadable_attributes);
  switch (n.kind) {
    case NodeKind::kGroup:
      out->kind = model::NodeKind::kGroup;
      for (ParamId p : l.group_params(id)) {
        model::Parameter param;
        param.name = std::string(l.name(l.params[p].name));
        param.doc = std::string(l.doc(l.params[p].doc));
        param.attributes = param_attributes(l, p, *out);
        try {
          param.value = context->binding.param_value(p);
          param.dtype = context->binding.param_dtype(p);
          param.address = context->binding.param_address(p);
        } catch (const Error& e) {
          param.error = model::NodeError::from(e);
        }
        out->params.push_back(std::move(param));
      }
      break;
    case NodeKind::kList:
      out->kind = model::NodeKind::kList;
      break;
    default:
      out->kind = model::NodeKind::kArray;
      if (context->binding.has_varying_instances(id)) {
        auto node = varying_item_node(context, id);
        node->name = std::move(out->name);
        node->doc = std::move(out->doc);
        node->attributes = std::move(out->attributes);
        node->unreadable_attributes = std::move(out->unreadable_attributes);
        return node;
      }
      try {
        BoundArray a = context->binding.array(id);
        out->dtype = a.dtype;
        out->shape = a.shape;
        out->storage = contiguous(a);
        out->data = std::make_shared<DudleyArray>(context, id);
        name_dimensions(l, n, *out);
      } catch (const Error& e) {
        out->error = model::NodeError::from(e);
      }
      return out;
  }
  const bool group = n.kind == NodeKind::kGroup;
  if (context->wanted.empty()) {
    for (NodeId c : l.children(id)) out->children.push_back(convert(context, c, path));
    return out;
  }
  // Members no wanted path needs are not bound at all; list items keep their places. The
  // names a group's members must have are found once, so that a group of many members
  // costs a comparison per member, not a path built for each.
  const std::string base = path == "/" ? "" : path;
  bool every = !group;
  std::vector<std::string_view> next;
  for (const std::string& w : context->wanted) {
    if (related_paths(path, w) && w.size() <= base.size() + 1) every = true;  // at or below w
    if (!every && w.size() > base.size() + 1 && w.compare(0, base.size(), base) == 0 &&
        w[base.size()] == '/') {
      const std::string_view rest = std::string_view(w).substr(base.size() + 1);
      next.push_back(rest.substr(0, rest.find('/')));
    }
  }
  if (group && !every) {
    // Only the members on the way to a wanted path, found by name, in declaration order.
    std::vector<NodeId> picked;
    for (std::string_view name : next) {
      const NameId name_id = l.names.find(name);
      if (name_id == kNone) continue;
      const std::vector<NodeId>& found = context->members->find(id, name_id);
      picked.insert(picked.end(), found.begin(), found.end());
    }
    std::sort(picked.begin(), picked.end(),
              [&l](NodeId a, NodeId b) { return l.nodes[a].index < l.nodes[b].index; });
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    for (NodeId c : picked) {
      out->children.push_back(
          convert(context, c, base + "/" + std::string(l.name(l.nodes[c].name))));
    }
    return out;
  }
  uint64_t index = 0;
  for (NodeId c = n.first_child; c != kNone; c = l.nodes[c].next_sibling) {
    std::string child = base + "/";
    child += group ? std::string(l.name(l.nodes[c].name)) : std::to_string(index++);
    out->children.push_back(convert(context, c, child));
  }
  return out;
}

}  // namespace

namespace {

model::Tree tree_of(CompiledLayout compiled, std::shared_ptr<io::ByteSource> source,
                    BindOptions options, std::vector<std::string> wanted = {}) {
  auto context =
      std::make_shared<Context>(std::move(compiled), std::move(source), std::move(options));
  context->wanted = std::move(wanted);
  // A file that fails its !DUDLEY signature is not the data the layout describes: every
  // command refuses it, instead of each parameter and array carrying the error (dump
  // printed nothing and exited 0).
  if (context->layout->signature) (void)context->binding.default_order();
  model::Tree tree;
  tree.format = "dudley";
  tree.root = convert(context, Layout::kRoot, "/");
  const Layout& l = *context->layout;
  for (uint32_t i = 0; i < l.pointees.size(); ++i) {
    std::unique_ptr<model::Node> node;
    try {
      node = bound_array_node(context, context->binding.pointee(i));
    } catch (const Error& e) {
      node = std::make_unique<model::Node>();
      node->kind = model::NodeKind::kArray;
      node->error = model::NodeError::from(e);
    }
    node->name = std::to_string(l.pointees[i].key);
    node->doc = std::string(l.doc(l.pointees[i].doc));
    node->attributes = model_attributes(l, l.pointees[i].attributes, &node->unreadable_attributes);
    tree.pointees[l.pointees[i].key] = std::move(node);
  }
  return tree;
}

}  // namespace

model::Tree dudley_tree(std::shared_ptr<const Layout> layout,
                        std::shared_ptr<io::ByteSource> source, BindOptions options) {
  const bool absent = options.params_absent;
  return tree_of(compile(std::move(layout), absent), std::move(source), std::move(options));
}

namespace {

// Whether `path` (a file here, or a URL) exists: for a URL, one request for its size.
bool file_exists(const std::string& path, const io::StoreOptions& stores) {
  if (!io::is_url(path)) return std::filesystem::exists(path);
  const size_t slash = path.rfind('/');
  return io::open_store(path.substr(0, slash), stores)->size(path.substr(slash + 1)).has_value();
}

// The bytes of `path`: a file here, or an object read by ranges.
std::shared_ptr<io::ByteSource> open_bytes(const std::string& path,
                                           const io::StoreOptions& stores) {
  return io::is_url(path) ? io::open_source(path, stores) : io::open_file(path);
}

// The layout in `path`, parsed and compiled; a file here through layout_file's cache.
LayoutFile load_layout_file(const std::string& path, bool params_absent,
                            const io::StoreOptions& stores) {
  if (!io::is_url(path)) return layout_file(path, params_absent);
  std::string text = io::read_text(path, stores);
  auto shared = std::make_shared<const std::string>(std::move(text));
  return {compile(std::make_shared<const Layout>(layout_from_text(*shared, path)), params_absent),
          shared};
}

}  // namespace

model::Tree open_with_layout(const std::string& data_path, const std::string& layout_path,
                             BindOptions options, std::vector<std::string> wanted,
                             const io::StoreOptions& stores) {
  std::string layout_file = layout_path;
  bool beside = false;  // NAME.dud found beside NAME.bin: the two must be one write's pair
  if (layout_file.empty()) {
    std::filesystem::path p(data_path);
    if (p.extension() == ".dud") {
      throw Error(ErrorCategory::kUsage,
                  "this is a layout; give the data file (and --layout if its name differs)",
                  Location::file(data_path));
    }
    layout_file = p.replace_extension(".dud").string();
    beside = file_exists(layout_file, stores);
    bool found = beside;
    if (!beside) {
      // A family member STEM_NNNN.EXT shares the family's layout STEM.dud.
      const std::string stem = std::filesystem::path(data_path).stem().string();
      const size_t cut = stem.find_last_not_of("0123456789");
      if (cut != std::string::npos && cut + 1 < stem.size() && stem[cut] == '_') {
        const auto shared =
            std::filesystem::path(data_path).parent_path() / (stem.substr(0, cut) + ".dud");
        if (file_exists(shared.string(), stores)) {
          layout_file = shared.string();
          found = true;
        }
      }
    }
    if (!found) {
      // Last, the data file itself may carry its layout after the data.
      std::shared_ptr<io::ByteSource> source = open_bytes(data_path, stores);
      if (std::optional<std::string> text = read_embedded_layout(*source)) {
        auto layout = std::make_shared<const Layout>(
            layout_from_text(*text, embedded_layout_name(data_path)));
        return dudley_tree(std::move(layout), std::move(source), std::move(options));
      }
      throw Error(ErrorCategory::kUsage,
                  "no layout given, no " + layout_file +
                      " beside the data, and none embedded in it: use --layout",
                  Location::file(data_path));
    }
  }
  if (layout_path.empty() && !io::is_url(data_path)) {
    // A layout found beside the data (NAME.dud, a family's STEM.dud) is read only where the
    // data's own files are (the rule for reading): a symbolic link NAME.dud to a file
    // elsewhere (~/.aws/credentials, /proc/self/environ) would otherwise have its lines
    // quoted by the parser's errors. A layout named with --layout may lie anywhere.
    const io::ReadRule::Verdict verdict = io::ReadRule::for_file(data_path).check(layout_file);
    if (verdict.outside) {
      throw Error(ErrorCategory::kData,
                  fmt::format("the layout beside it, {}, is not read: {} (name a layout "
                              "elsewhere with --layout)",
                              layout_file, verdict.why),
                  Location::file(data_path));
    }
  }
  const LayoutFile layout = load_layout_file(layout_file, options.params_absent, stores);
  std::shared_ptr<io::ByteSource> source = open_bytes(data_path, stores);
  if (beside) {
    if (std::optional<PairRecord> record = parse_pair_line(*layout.text)) {
      verify_pair(*record, *source, layout_file);
    }
  }
  return tree_of(layout.compiled, std::move(source), std::move(options), std::move(wanted));
}

}  // namespace dudley::layout
