#include "view/tree_pages.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "cli/model_json.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/deadline.hpp"

namespace dudley::view {
namespace {

using json = nlohmann::ordered_json;

// A node's own listing (an array whole; a group or list without its members or items,
// which the callers add), in the form `ls --json` gives it.
json own_json(const model::Node& node, const std::string& path) {
  if (node.kind == model::NodeKind::kArray) return cli::node_json(node, cli::TreeWalk{}, path);
  // A group or list by hand: node_json would walk its members (600,000 of them) to list none.
  json out;
  out["kind"] = node.kind == model::NodeKind::kGroup ? "group" : "list";
  if (node.kind == model::NodeKind::kGroup) {
    out["members"] = json::object();
    const json params = cli::params_json(node);
    if (!params.empty()) out["params"] = params;
    if (!node.attributes.empty()) out["attributes"] = cli::attributes_json(node.attributes);
    out["members_count"] = model::child_count(node);
  } else {
    out["items"] = json::array();
    if (!node.attributes.empty()) out["attributes"] = cli::attributes_json(node.attributes);
  }
  return out;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Depth first with an explicit stack (groups may nest deeper than the call stack could
// follow), `budget` nodes at most.
class FirstView {
 public:
  explicit FirstView(uint64_t budget) : budget_(budget) {}

  json run(const model::Node& root) {
    json out = own_json(root, "/");
    --budget_;
    fill(root, "/", out);
    return out;
  }

 private:
  // Adds `node`'s members or items (and theirs) to `out`, while the budget lasts.
  void fill(const model::Node& node, const std::string& path, json& out) {
    if (node.kind == model::NodeKind::kArray) return;
    const bool list = node.kind == model::NodeKind::kList;
    json children = list ? json::array() : json::object();
    uint64_t shown = 0;
    model::for_each_child(node, [&](uint64_t i, const model::Node& c) {
      if (budget_ == 0 || i >= kPageMembers) return false;
      --budget_;
      const std::string walk_path = cli::child_path(node, path, c, i);
      json child = own_json(c, walk_path);
      fill(c, walk_path, child);
      if (list) {
        children.push_back(std::move(child));
      } else {
        // Appended directly: names in one group are unique, and operator[] would search.
        children.get_ref<json::object_t&>().json::object_t::Container::emplace_back(
            c.name, std::move(child));
      }
      shown = i + 1;
      return true;
    });
    if (list) {
      const uint64_t count = model::child_count(node);
      if (shown < count) out["omitted"] = count - shown;
      out["items"] = std::move(children);
    } else {
      out["members"] = std::move(children);
    }
  }

  uint64_t budget_;
};

}  // namespace

std::string member_path(const std::string& parent, const std::string& name) {
  const std::string base = parent == "/" ? "" : parent;
  if (name.find_first_of(".[]\"\\") == std::string::npos) return base + "/" + name;
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return base + "/" + quoted + "\"";
}

json first_view(const model::Node& root) {
  return FirstView(kFirstViewNodes).run(root);
}

json members_page(const model::Node& group, const std::string& path, uint64_t start) {
  json members = json::object();
  auto& storage = members.get_ref<json::object_t&>();
  model::for_each_child(group, [&](uint64_t i, const model::Node& c) {
    if (i < start) return true;
    if (i >= start + kPageMembers) return false;
    storage.json::object_t::Container::emplace_back(
        c.name, own_json(c, cli::child_path(group, path, c, i)));
    return true;
  });
  return json{{"path", path},
              {"start", start},
              {"members_count", model::child_count(group)},
              {"members", std::move(members)}};
}

json search(const model::Node& root, const std::string& text) {
  const std::string wanted = lower(text);
  uint64_t since_check = 0;
  json matches = json::array();
  uint64_t looked = 0;
  bool complete = true;
  // (a group or list, its item path)
  std::vector<std::pair<const model::Node*, std::string>> todo{{&root, "/"}};
  while (!todo.empty() && complete) {
    // Plain names, not a structured binding: the lambda below uses them (clang 14 cannot
    // capture bindings).
    const model::Node* node = todo.back().first;
    const std::string path = std::move(todo.back().second);
    todo.pop_back();
    std::vector<std::pair<const model::Node*, std::string>> below;
    // Lists made on demand build their items during the visit only: their groups are
    // searched here, one level at a time, and their arrays matched by name.
    model::for_each_child(*node, [&](uint64_t i, const model::Node& c) {
      if (++looked > kSearchNodes || matches.size() >= kSearchMatches) {
        complete = false;
        return false;
      }
      // Long names and a long query cost time on a wide tree: the request's time limit holds.
      if (++since_check == 4096) {
        since_check = 0;
        check_thread_deadline();
      }
      if (node->kind == model::NodeKind::kList && i >= kPageMembers) return false;
      const std::string p = node->kind == model::NodeKind::kList
                                ? path + "[" + std::to_string(i) + "]"
                                : member_path(path, c.name);
      if (node->kind != model::NodeKind::kList && lower(c.name).find(wanted) != std::string::npos)
        matches.push_back({{"path", p},
                           {"kind", c.kind == model::NodeKind::kArray  ? "array"
                                    : c.kind == model::NodeKind::kList ? "list"
                                                                       : "group"}});
      if (c.kind != model::NodeKind::kArray && !node->lazy) below.emplace_back(&c, p);
      return true;
    });
    for (auto it = below.rbegin(); it != below.rend(); ++it) todo.push_back(*it);
  }
  return json{{"matches", std::move(matches)}, {"complete", complete}};
}

}  // namespace dudley::view
