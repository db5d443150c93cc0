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

// Depth first, `budget` nodes at most and kFirstViewDepth levels: a group deeper down
// shows its members_count only (the page asks for its members when it is opened), so that
// a file of groups nested 20,000 deep cannot take the call stack that far.
class FirstView {
 public:
  explicit FirstView(uint64_t budget) : budget_(budget) {}

  json run(const model::Node& root) {
    json out = own_json(root, "/");
    --budget_;
    fill(root, "/", out, 0);
    return out;
  }

 private:
  // Adds `node`'s members or items (and theirs) to `out`, while the budget lasts.
  void fill(const model::Node& node, const std::string& path, json& out, size_t depth) {
    if (node.kind == model::NodeKind::kArray || depth >= kFirstViewDepth) return;
    const bool list = node.kind == model::NodeKind::kList;
    json children = list ? json::array() : json::object();
    uint64_t shown = 0;
    model::for_each_child(node, [&](uint64_t i, const model::Node& c) {
      if (budget_ == 0 || i >= kPageMembers) return false;
      --budget_;
      const std::string walk_path = cli::child_path(node, path, c, i);
      json child = own_json(c, walk_path);
      fill(c, walk_path, child, depth + 1);
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
  // A group's members are held: the page is taken where it starts (a walk from the first
  // member made paging through 600,000 of them quadratic).
  const auto& children = group.children;
  for (uint64_t i = start; i < children.size() && i < start + kPageMembers; ++i) {
    const model::Node& c = *children[i];
    storage.json::object_t::Container::emplace_back(
        c.name, own_json(c, cli::child_path(group, path, c, i)));
  }
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
  bool complete = true;  // false: a bound ended the walk
  bool skipped = false;  // parts not looked at (a list's items past a page, items' members)
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
      if (node->kind == model::NodeKind::kList && i >= kPageMembers) {
        skipped = true;  // the list's further items are not looked at
        return false;
      }
      const std::string p = node->kind == model::NodeKind::kList
                                ? path + "[" + std::to_string(i) + "]"
                                : member_path(path, c.name);
      if (node->kind != model::NodeKind::kList && lower(c.name).find(wanted) != std::string::npos)
        matches.push_back({{"path", p},
                           {"kind", c.kind == model::NodeKind::kArray  ? "array"
                                    : c.kind == model::NodeKind::kList ? "list"
                                                                       : "group"}});
      if (c.kind != model::NodeKind::kArray) {
        // An item made on demand lives only during this call: its members are not looked
        // at, and the answer says so.
        if (node->lazy) {
          skipped = skipped || model::child_count(c) > 0;
        } else {
          below.emplace_back(&c, p);
        }
      }
      return true;
    });
    for (auto it = below.rbegin(); it != below.rend(); ++it) todo.push_back(*it);
  }
  return json{{"matches", std::move(matches)}, {"complete", complete && !skipped}};
}

}  // namespace dudley::view
