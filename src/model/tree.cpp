#include "dudley/model/tree.hpp"

#include "dudley/core/path.hpp"

namespace dudley::model {

const Node* Node::member(std::string_view wanted) const {
  if (kind != NodeKind::kGroup) return nullptr;
  for (const auto& c : children) {
    if (c->name == wanted) return c.get();
  }
  return nullptr;
}

const Node* Tree::find(std::string_view path) const {
  const Node* node = root.get();
  for (std::string_view part : split_path(path)) {
    if (!node) return nullptr;
    if (node->kind == NodeKind::kList) {
      auto index = path_index(part);
      if (!index || *index >= node->children.size()) return nullptr;
      node = node->children[*index].get();
    } else {
      node = node->member(part);
    }
  }
  return node;
}

}  // namespace dudley::model
