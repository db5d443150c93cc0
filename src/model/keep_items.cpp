#include "dudley/model/keep_items.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dudley/core/error.hpp"

namespace dudley::model {
namespace {

// "/a/b/" -> {"a", "b"}; "/" -> {}.
std::vector<std::string> parts_of(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return parts;
}

struct Wanted {
  std::vector<std::string> parts;
  size_t index = 0;  ///< into the list the user gave
};

class Pruner {
 public:
  Pruner(const std::vector<std::string>& include, const std::string& source)
      : include_(include), source_(source), used_(include.size(), false) {}

  // Keeps of `node` (at `path`) what `wanted` asks for; `depth` parts of each are matched.
  void keep(Node& node, const std::string& path, const std::vector<Wanted>& wanted, size_t depth) {
    for (const Wanted& w : wanted) {
      if (w.parts.size() == depth) {
        used_[w.index] = true;
        return;  // the item itself: all of it
      }
    }
    if (node.kind != NodeKind::kGroup) {
      const Wanted& w = wanted.front();
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{}: {} is {}; convert carries whole items (a list with its "
                              "items, an array whole)",
                              include_[w.index], path.empty() ? "/" : path,
                              node.kind == NodeKind::kList ? "a list" : "an array"),
                  Location::file(source_));
    }
    node.attributes = Attributes();  // a container of what was asked for, not asked for
    std::vector<std::unique_ptr<Node>> kept;
    for (std::unique_ptr<Node>& child : node.children) {
      std::vector<Wanted> below;
      for (const Wanted& w : wanted) {
        if (w.parts[depth] == child->name) below.push_back(w);
      }
      if (below.empty()) continue;
      keep(*child, path + "/" + child->name, below, depth + 1);
      kept.push_back(std::move(child));
    }
    node.children = std::move(kept);
  }

  void check_all_found() const {
    std::vector<std::string> missing;
    for (size_t i = 0; i < include_.size(); ++i) {
      if (!used_[i]) missing.push_back(include_[i]);
    }
    if (!missing.empty()) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("no item {} in the source (dudley ls lists its items)",
                              fmt::join(missing, ", ")),
                  Location::file(source_));
    }
  }

 private:
  const std::vector<std::string>& include_;
  const std::string& source_;
  std::vector<bool> used_;
};

void exclude_one(Tree& tree, const std::string& path, const std::string& source) {
  const std::vector<std::string> parts = parts_of(path);
  if (parts.empty()) {
    throw Error(ErrorCategory::kUsage, "--exclude /: nothing would be left to convert",
                Location::file(source));
  }
  Node* node = tree.root.get();
  for (size_t i = 0; i + 1 < parts.size() && node; ++i) {
    Node* next = nullptr;
    if (node->kind == NodeKind::kGroup) {
      for (auto& c : node->children) {
        if (c->name == parts[i]) next = c.get();
      }
    }
    node = next;
  }
  if (node && node->kind == NodeKind::kGroup) {
    auto& children = node->children;
    const auto it = std::find_if(children.begin(), children.end(),
                                 [&](const auto& c) { return c->name == parts.back(); });
    if (it != children.end()) {
      children.erase(it);
      return;
    }
  }
  throw Error(ErrorCategory::kUsage,
              fmt::format("--exclude {}: no such item in the source (items of a list are "
                          "carried with their list)",
                          path),
              Location::file(source));
}

}  // namespace

void keep_items(Tree& tree, const std::vector<std::string>& include,
                const std::vector<std::string>& exclude, const std::string& source) {
  if (!include.empty() && tree.root) {
    std::vector<Wanted> wanted;
    for (size_t i = 0; i < include.size(); ++i) wanted.push_back({parts_of(include[i]), i});
    Pruner pruner(include, source);
    pruner.keep(*tree.root, "", wanted, 0);
    pruner.check_all_found();
  }
  for (const std::string& path : exclude) exclude_one(tree, path, source);
}

}  // namespace dudley::model
