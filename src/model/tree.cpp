#include "dudley/model/tree.hpp"

#include <algorithm>

#include "dudley/core/path.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"

namespace dudley::model {

std::string attribute_problem(const std::string& path, const std::string& name,
                              const NodeError& error) {
  std::string why = error.message;
  const std::string named = name.empty() ? path + ": " : path + ": attribute '" + name + "': ";
  if (why.starts_with(named)) {
    why.erase(0, named.size());
  } else if (why.starts_with(path + ": ")) {
    why.erase(0, path.size() + 2);
  }
  return named + why;
}

const char* Link::end_name() const noexcept {
  switch (end) {
    case End::kFollowed:
      return "followed";
    case End::kGroupHere:
      return "group here";
    case End::kNothing:
      return "nothing";
    case End::kOther:
      return "other";
    case End::kRefused:
      return "refused";
  }
  return "followed";
}

std::string Link::describe() const {
  return (kind == "external" ? "an " : "a ") + kind + " link to " + text();
}

void verify_all(const std::vector<ArraySource*>& sources) {
  std::vector<std::function<void()>> jobs;  // prepared here, run on the pool
  for (ArraySource* s : sources) {
    if (!s || s->read_unit().working_bytes != 0) continue;
    if (auto job = s->prepare_verify()) jobs.push_back(std::move(job));
  }
  dudley::ThreadPool::shared().parallel_for(jobs.size(), [&](size_t i) { jobs[i](); });
}

void ArraySource::read_into(const Hyperslab& slab, void* out) {
  read(slab).copy_native_into(out);
}

const Node* Node::member(std::string_view wanted) const {
  if (kind != NodeKind::kGroup) return nullptr;
  for (const auto& c : children) {
    if (c->name == wanted) return c.get();
  }
  return nullptr;
}

uint64_t StoredChunks::stored_elements() const {
  uint64_t per_chunk = 1;
  for (int64_t c : chunk_shape) {
    const auto n = static_cast<uint64_t>(std::max<int64_t>(c, 0));
    per_chunk = n != 0 && per_chunk > UINT64_MAX / n ? UINT64_MAX : per_chunk * n;
  }
  return chunks != 0 && per_chunk > UINT64_MAX / chunks ? UINT64_MAX : per_chunk * chunks;
}

uint64_t array_bytes(const Node& node) {
  if (node.kind == NodeKind::kArray)
    return Shape(node.shape).byte_size(node.dtype.size()).value_or(0);
  uint64_t total = 0;
  for_each_child(node, [&](uint64_t, const Node& c) {
    total = checked_add(total, array_bytes(c)).value_or(UINT64_MAX);
    return true;
  });
  return total;
}

uint64_t child_count(const Node& node) {
  return node.lazy ? node.lazy->size() : node.children.size();
}

void for_each_child(const Node& node, const std::function<bool(uint64_t, const Node&)>& visit) {
  if (!node.lazy) {
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (!visit(i, *node.children[i])) return;
    }
    return;
  }
  const uint64_t n = node.lazy->size();
  for (uint64_t i = 0; i < n; ++i) {
    std::unique_ptr<Node> item = node.lazy->item(i);
    if (!visit(i, *item) || !item->error.empty()) return;
  }
}

const Node* Tree::find(std::string_view path) const {
  std::vector<std::string> parts;
  for (std::string_view part : split_path(path)) parts.emplace_back(part);
  const Node* node = root.get();
  int hops = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!node) return nullptr;
    if (node->kind == NodeKind::kList) {
      auto index = path_index(parts[i]);
      if (!index || *index >= child_count(*node)) return nullptr;
      if (node->lazy) {
        found_.push_back(node->lazy->item(*index));
        node = found_.back().get();
      } else {
        node = node->children[*index].get();
      }
    } else {
      node = node->member(parts[i]);
    }
    if (node && node->link && node->link->end == Link::End::kGroupHere) {
      // The rest of the path from the group it points to: the target's parts replace the
      // ones walked so far, and the walk starts again at the root.
      if (++hops > kMaxLinkHops) return nullptr;
      std::vector<std::string> rest;
      for (std::string_view part : split_path(node->link->listed_at)) rest.emplace_back(part);
      const size_t walked = rest.size();
      rest.insert(rest.end(), parts.begin() + static_cast<std::ptrdiff_t>(i) + 1, parts.end());
      parts = std::move(rest);
      node = root.get();
      i = static_cast<size_t>(-1);  // the loop's ++i starts at 0
      if (walked == 0) continue;    // a link to the root
    }
  }
  return node;
}

}  // namespace dudley::model

namespace dudley::model {

std::unique_ptr<Node> copy_array_node(const Node& a) {
  auto copy = std::make_unique<Node>();
  copy->kind = NodeKind::kArray;
  copy->name = a.name;
  copy->doc = a.doc;
  copy->attributes = a.attributes;
  copy->unreadable_attributes = a.unreadable_attributes;
  copy->dtype = a.dtype;
  copy->shape = a.shape;
  copy->empty = a.empty;
  copy->link = a.link;
  copy->storage = a.storage;
  copy->data = a.data;
  copy->error = a.error;
  return copy;
}

const Tree& with_group_root(const Tree& tree, Tree& holder) {
  if (!tree.root || tree.root->kind != NodeKind::kArray) return tree;
  const Node& a = *tree.root;
  std::unique_ptr<Node> copy = copy_array_node(a);
  if (copy->name.empty()) copy->name = "data";
  holder.format = tree.format;
  holder.root = std::make_unique<Node>();
  holder.root->kind = NodeKind::kGroup;
  holder.root->children.push_back(std::move(copy));
  holder.companions = tree.companions;
  holder.netcdf_classic = tree.netcdf_classic;
  return holder;
}

}  // namespace dudley::model
