#include "dudley/model/tree.hpp"

#include <charconv>

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
  size_t i = 0;
  while (node && i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(i, end - i);
    i = end;
    if (node->kind == NodeKind::kList) {
      size_t index = 0;
      auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
      if (ec != std::errc() || p != part.data() + part.size() || index >= node->children.size())
        return nullptr;
      node = node->children[index].get();
    } else {
      node = node->member(part);
    }
  }
  return node;
}

}  // namespace dudley::model
