#include "dudley/layout/to_model.hpp"

#include <filesystem>

#include "dudley/core/error.hpp"
#include "dudley/layout/parser.hpp"
#include "dudley/layout/reader.hpp"

namespace dudley::layout {

namespace {

// Shared by every array of one tree: the layout, the bytes, and the (lazy) binding.
struct Context {
  std::shared_ptr<const Layout> layout;
  std::shared_ptr<io::ByteSource> source;
  Binding binding;
  Context(std::shared_ptr<const Layout> l, std::shared_ptr<io::ByteSource> s, BindOptions o)
      : layout(std::move(l)), source(std::move(s)), binding(*layout, source, std::move(o)) {}
};

class DudleyArray final : public model::ArraySource {
 public:
  DudleyArray(std::shared_ptr<Context> context, NodeId node)
      : context_(std::move(context)), node_(node) {}
  NDArray read() override { return read_array(context_->binding, node_); }
  NDArray read(const Hyperslab& slab) override {
    return read_array(context_->binding, node_, slab);
  }

 private:
  std::shared_ptr<Context> context_;
  NodeId node_;
};

std::unique_ptr<model::Node> convert(const std::shared_ptr<Context>& context, NodeId id) {
  const Layout& l = *context->layout;
  const Node& n = l.nodes[id];
  auto out = std::make_unique<model::Node>();
  out->name = std::string(l.name(n.name));
  out->doc = std::string(l.doc(n.doc));
  switch (n.kind) {
    case NodeKind::kGroup:
      out->kind = model::NodeKind::kGroup;
      for (ParamId p : l.group_params(id)) {
        model::Parameter param;
        param.name = std::string(l.name(l.params[p].name));
        param.doc = std::string(l.doc(l.params[p].doc));
        try {
          param.value = context->binding.param_value(p);
          param.dtype = context->binding.param_dtype(p);
          param.address = context->binding.param_address(p);
        } catch (const Error& e) {
          param.error = e.what();
        }
        out->params.push_back(std::move(param));
      }
      break;
    case NodeKind::kList:
      out->kind = model::NodeKind::kList;
      break;
    default:
      out->kind = model::NodeKind::kArray;
      try {
        BoundArray a = context->binding.array(id);
        out->dtype = a.dtype;
        out->shape = a.shape;
        out->address = a.address;
        out->data = std::make_shared<DudleyArray>(context, id);
      } catch (const Error& e) {
        out->error = e.what();
      }
      return out;
  }
  for (NodeId c : l.children(id)) out->children.push_back(convert(context, c));
  return out;
}

}  // namespace

model::Tree dudley_tree(std::shared_ptr<const Layout> layout,
                        std::shared_ptr<io::ByteSource> source, BindOptions options) {
  auto context =
      std::make_shared<Context>(std::move(layout), std::move(source), std::move(options));
  model::Tree tree;
  tree.format = "dudley";
  tree.root = convert(context, Layout::kRoot);
  return tree;
}

model::Tree open_dudley(const std::string& data_path, const std::string& layout_path,
                        BindOptions options) {
  std::string layout_file = layout_path;
  if (layout_file.empty()) {
    std::filesystem::path p(data_path);
    if (p.extension() == ".dud") {
      throw Error(ErrorCategory::kUsage,
                  "this is a layout; give the data file (and --layout if its name differs)",
                  Location::file(data_path));
    }
    layout_file = p.replace_extension(".dud").string();
    if (!std::filesystem::exists(layout_file)) {
      throw Error(ErrorCategory::kUsage,
                  "no layout given and no " + layout_file + " beside the data: use --layout",
                  Location::file(data_path));
    }
  }
  auto layout = std::make_shared<const Layout>(load_layout(layout_file));
  return dudley_tree(std::move(layout), io::open_file(data_path), std::move(options));
}

}  // namespace dudley::layout
