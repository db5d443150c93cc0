// An ASDF file -> model tree. ndarray nodes become arrays; mappings and lists that hold
// arrays become groups and lists; everything else (scalars, strings, maps, lists, tagged
// objects we do not model) becomes attributes of the group that holds it.
#include "reader.hpp"
#include "yaml_names.hpp"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "block_store.hpp"
#include "file_structure.hpp"
#include "ndarray_node.hpp"

namespace dudley::asdf {
namespace {

using model::Node;
using model::NodeKind;
using model::Value;

class TreeBuilder {
 public:
  TreeBuilder(ArrayContext& context, const std::string& path) : context_(context), path_(path) {}

  void fill_group(Node& group, const YamlNode& map, const std::string& group_path) {
    // The names taken, for naming masks: gathered at the first mask array.
    std::unordered_set<std::string> names;
    for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
      const YamlNode& key = *map.items[i];
      const YamlNode& value = *map.items[i + 1];
      context_.budget->take(key);
      const std::string name(key.text);
      if (is_ndarray(value)) {
        auto array = array_node(value, name);
        const YamlNode* mask = value.is_mapping() ? value.find("mask") : nullptr;
        if (mask && is_ndarray(*mask)) {
          if (names.empty()) {
            for (size_t k = 0; k + 1 < map.items.size(); k += 2) {
              names.emplace(map.items[k]->text);
            }
          }
          std::string mask_name = name + kMaskSuffix;
          while (names.count(mask_name)) mask_name += "_";
          names.insert(mask_name);
          auto masking = std::make_shared<model::Masking>();
          masking->array = group_path + "/" + mask_name;
          array->storage.mask = std::move(masking);
          auto mask_node = array_node(*mask, mask_name);
          check_mask_shape(*array, *mask_node, *mask);
          group.children.push_back(std::move(array));
          group.children.push_back(std::move(mask_node));
        } else {
          group.children.push_back(std::move(array));
        }
      } else if (!value.is_scalar() && holds_arrays(value)) {
        group.children.push_back(container(value, name, group_path + "/" + name));
      } else {
        group.attributes.set(name, to_value(value, path_, *context_.budget));
      }
    }
  }

  std::unique_ptr<Node> container(const YamlNode& value, const std::string& name,
                                  const std::string& node_path) {
    context_.budget->take(value);
    auto node = std::make_unique<Node>();
    node->name = name;
    if (value.is_mapping()) {
      node->kind = NodeKind::kGroup;
      if (!value.tag.empty()) node->attributes.set(kTagAttribute, Value(std::string(value.tag)));
      fill_group(*node, value, node_path);
      return node;
    }
    if (value.is_sequence()) {
      node->kind = NodeKind::kList;
      for (size_t i = 0; i < value.items.size(); ++i) {
        const YamlNode& item = *value.items[i];
        const std::string item_path = fmt::format("{}/{}", node_path, i);
        if (is_ndarray(item)) {
          node->children.push_back(array_node(item, ""));
        } else if (!item.is_scalar()) {
          node->children.push_back(container(item, "", item_path));
        } else {
          // A scalar among arrays: a group that holds it as its "value".
          auto holder = std::make_unique<Node>();
          holder->kind = NodeKind::kGroup;
          holder->attributes.set("value", to_value(item, path_, *context_.budget));
          node->children.push_back(std::move(holder));
        }
      }
      return node;
    }
    node->kind = NodeKind::kGroup;
    node->attributes.set("value", to_value(value, path_, *context_.budget));
    return node;
  }

 private:
  // The standard asks a mask array to broadcast to its array's shape (numpy's rule: aligned
  // from the last dimension, each mask extent equal or 1); python asdf refuses others, so
  // an array with such a mask is a node error naming the mask, and reads as nothing.
  void check_mask_shape(Node& array, const Node& mask, const YamlNode& mask_yaml) const {
    if (!array.error.empty() || !mask.error.empty()) return;
    const auto& a = array.shape;
    const auto& m = mask.shape;
    bool broadcasts = m.size() <= a.size();
    for (size_t k = 1; broadcasts && k <= m.size(); ++k) {
      const int64_t mk = m[m.size() - k];
      broadcasts = mk == 1 || mk == a[a.size() - k];
    }
    if (broadcasts) return;
    array.error = model::NodeError::from(
        Error(ErrorCategory::kData,
              fmt::format("its mask has shape [{}], which does not broadcast to the array's "
                          "shape [{}]",
                          fmt::join(m, ", "), fmt::join(a, ", ")),
              location_of(mask_yaml, path_)));
  }

  std::unique_ptr<Node> array_node(const YamlNode& value, const std::string& name) {
    context_.budget->take(ExpansionBudget::kArrayNodeCost, value);
    try {
      return ndarray_to_array(value, name, context_);
    } catch (const ExpansionLimitError&) {
      throw;  // an alias bomb stops the whole read
    } catch (const Error& e) {
      auto node = std::make_unique<Node>();
      node->kind = NodeKind::kArray;
      node->name = name;
      node->error = model::NodeError::from(e);
      return node;
    }
  }

  // Whether an ndarray lies anywhere below `node` (memoised: aliases share nodes).
  bool holds_arrays(const YamlNode& node) {
    if (is_ndarray(node)) return true;
    if (node.is_scalar()) return false;
    if (auto it = memo_.find(&node); it != memo_.end()) return it->second;
    bool found = false;
    for (size_t i = node.is_mapping() ? 1 : 0; i < node.items.size() && !found;
         i += node.is_mapping() ? 2 : 1) {
      found = holds_arrays(*node.items[i]);
    }
    memo_[&node] = found;
    return found;
  }

  ArrayContext& context_;
  const std::string& path_;
  std::unordered_map<const YamlNode*, bool> memo_;
};

}  // namespace

bool has_asdf_signature(std::span<const std::byte> head) {
  return head.size() >= 6 && std::memcmp(head.data(), "#ASDF ", 6) == 0;
}

model::Tree open_asdf(std::shared_ptr<io::ByteSource> source, const std::string& path,
                      const AsdfOpenOptions& options, const OpenOptions& common) {
  const FileStructure structure = read_structure(*source);
  YamlDocument doc;
  if (!structure.tree_text.empty()) doc = parse_yaml(structure.tree_text, path);
  auto blocks = locate_blocks(*source, structure.tree_end);

  ExpansionBudget budget(doc, path);
  ArrayContext context;
  context.path = path;
  context.options = options;
  context.store = common.store;
  context.allow_outside = common.allow_outside;
  context.blocks =
      std::make_shared<const BlockStore>(std::move(source), std::move(blocks), options);
  context.budget = &budget;

  model::Tree tree;
  tree.format = "asdf";
  tree.root = std::make_unique<Node>();
  tree.root->kind = NodeKind::kGroup;
  if (doc.root) {
    if (!doc.root->is_mapping()) {
      throw Error(ErrorCategory::kData, "the tree's root is not a mapping",
                  location_of(*doc.root, path));
    }
    TreeBuilder(context, path).fill_group(*tree.root, *doc.root, "");
  }
  for (const auto& [file, store] : context.external) tree.companions.push_back(file);
  return tree;
}

model::Tree open_asdf(const std::string& path, const AsdfOpenOptions& options,
                      const OpenOptions& common) {
  return open_asdf(io::open_source(path, common.store), path, options, common);
}

}  // namespace dudley::asdf
