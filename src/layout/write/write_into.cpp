// Writing a model tree into a layout the caller chose (a family's template, a layout agreed
// with another code) rather than one made from the tree: each data item of the layout takes
// the tree's array at the same path.
#include <functional>
#include <set>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "writer_support.hpp"

namespace dudley::layout {

namespace {

std::string child_path(const std::string& parent, const std::string& name) {
  return (parent == "/" ? "" : parent) + "/" + name;
}

// Every array of the tree by path (list items by index).
void arrays_of(const model::Node& n, const std::string& path, std::set<std::string>& out) {
  if (n.kind == model::NodeKind::kArray) {
    out.insert(path);
    return;
  }
  model::for_each_child(n, [&](uint64_t i, const model::Node& c) {
    arrays_of(c, child_path(path, n.kind == model::NodeKind::kList ? std::to_string(i) : c.name),
              out);
    return true;
  });
}

Instance instance_from(const Layout& layout, const TypeDef& type, const model::Node& node,
                       const std::string& path, std::set<std::string>& used);

// The instances of an item (or struct member) whose instances vary, from the tree: a list
// of them for a shaped item, the node itself for a single one.
std::vector<Instance> instances_from(const Layout& layout, const Node& item,
                                     const model::Node& node, const std::string& path,
                                     std::set<std::string>& used) {
  const TypeDef& t = layout.types[item.type.user];
  const bool shaped = (t.kind == TypeKind::kHeteroBody && t.block != kNone) || item.dims.count > 0;
  std::vector<Instance> out;
  if (!shaped) {
    out.push_back(instance_from(layout, t, node, path, used));
  } else if (node.kind == model::NodeKind::kList) {
    model::for_each_child(node, [&](uint64_t i, const model::Node& c) {
      out.push_back(instance_from(layout, t, c, child_path(path, std::to_string(i)), used));
      return true;
    });
  } else {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the layout's instances need a list here", path));
  }
  return out;
}

// One instance of a struct whose instances vary, from the tree: the array a typedef holds,
// or a group of member arrays with the instance's parameters.
Instance instance_from(const Layout& layout, const TypeDef& type, const model::Node& node,
                       const std::string& path, std::set<std::string>& used) {
  Instance out;
  if (type.is_typedef(layout.nodes)) {
    if (node.kind != model::NodeKind::kArray || !node.data) {
      throw Error(ErrorCategory::kUsage, fmt::format("{}: the source has no array here", path));
    }
    out.members.emplace("", node.data->read());
    used.insert(path);
    return out;
  }
  if (node.kind != model::NodeKind::kGroup) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{}: the layout's struct needs a group of members here", path));
  }
  for (const StructEntry& e : type.body) {
    if (e.kind == StructEntry::Kind::kParam) {
      const std::string_view name = layout.name(layout.params[e.index].name);
      for (const model::Parameter& p : node.params) {
        if (p.name == name && p.value) out.params.emplace(std::string(name), *p.value);
      }
    }
    if (e.kind != StructEntry::Kind::kMember) continue;
    const Node& declared = layout.nodes[e.index];
    const std::string name(layout.name(declared.name));
    const model::Node* member = node.member(name);
    if (member && varying_type(layout, declared.type)) {
      out.nested.emplace(name,
                         instances_from(layout, declared, *member, child_path(path, name), used));
      continue;
    }
    if (member && member->kind == model::NodeKind::kArray && member->data) {
      out.members.emplace(name, member->data->read());
      used.insert(child_path(path, name));
    }
  }
  return out;
}

}  // namespace

uint64_t write_tree_into(const model::Tree& tree, const Layout& layout,
                         const std::string& data_path, const WriteOptions& options,
                         std::vector<std::string>* unused) {
  Writer w(layout, data_path, options);
  std::set<std::string> used;
  for (NodeId n = 0; n < layout.nodes.size(); ++n) {
    if (layout.nodes[n].kind != NodeKind::kData) continue;
    const std::string path = layout.path(n);
    const model::Node* source = tree.find(path);
    if (!source) continue;  // reads as zeros
    const TypeRef& type = layout.nodes[n].type;
    if (!varying_type(layout, type)) {
      w.write_from(path, *source);
      used.insert(path);
      continue;
    }
    std::vector<Instance> instances = instances_from(layout, layout.nodes[n], *source, path, used);
    w.write_instances(path, std::move(instances));
  }
  for (const Pointee& p : layout.pointees) {
    auto target = tree.pointees.find(p.key);
    if (target != tree.pointees.end() && target->second->data) {
      w.write_pointee(p.key, target->second->data->read());
    }
  }
  // Parameters no array shape set: the source's values of the same name in the same group.
  for (ParamId p = 0; p < layout.params.size(); ++p) {
    const Param& param = layout.params[p];
    if (param.group == kNone || param.kind != ParamKind::kDynamic) continue;
    if (w.param_values().count(p)) continue;
    const model::Node* group = tree.find(layout.path(param.group));
    if (!group) continue;
    for (const model::Parameter& q : group->params) {
      if (q.name == layout.name(param.name) && q.value)
        w.set_param(param_path(layout, p), *q.value);
    }
  }
  const uint64_t size = w.commit();
  if (unused) {
    std::set<std::string> all;
    arrays_of(*tree.root, "/", all);
    unused->clear();
    for (const std::string& a : all) {
      if (!used.count(a)) unused->push_back(a);
    }
  }
  return size;
}

}  // namespace dudley::layout
