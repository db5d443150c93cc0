// `dudley dump`: array values, whole or a selection, and pointer targets with --deref.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"
#include "dudley/core/shape.hpp"

namespace dudley::cli {

namespace {

using json = nlohmann::ordered_json;

struct DumpOptions {
  DataOptions data;
  std::vector<std::string> items;
  bool deref = false;
  uint64_t max_items = 1000;
};

// Pointees may hold pointers in turn; a chain longer than this is reported, not followed.
constexpr int kMaxDerefDepth = 16;

// Calls visit(path, array) for every array below `node`, in order. Items made on demand
// live only during their call.
// `visit` returns false to stop; so does for_each_array then.
bool for_each_array(const model::Node& node, const std::string& path,
                    const std::function<bool(const std::string&, const model::Node&)>& visit) {
  if (node.kind == model::NodeKind::kArray) return visit(path, node);
  bool go_on = true;
  for_each_child(node, [&](uint64_t i, const model::Node& c) {
    go_on = for_each_array(c, child_path(node, path, c, i), visit);
    return go_on;
  });
  return go_on;
}

// One thing to print: an array (its label is the path with the selection as given), or
// every array below a group or list.
struct Request {
  std::string label;
  std::string path;
  const model::Node* node = nullptr;  // kept alive by the tree (Tree::find)
  std::string selection;              // "" for the whole array
  bool below = false;                 // a group or list: every array below it
};

class Dumper {
 public:
  // Arrays that hold no bytes are backed by nothing in the file, so their number is capped
  // per output: text is printed as it goes, JSON is built whole before printing (about
  // 2 KB an array), hence its lower cap.
  Dumper(const model::Tree& tree, bool json)
      : tree_(tree), empty_budget_(json ? uint64_t{1} << 14 : kMaxEmptyValues) {}

  int status() const { return status_; }
  /// True once the output's budget of arrays holding no bytes is spent.
  bool exhausted() const { return exhausted_; }

  // The values of one request ("data" or a selection), with targets when dereferencing.
  void read(const Request& r, json& values, json* targets) {
    if (!r.node->error.empty()) throw Error(ErrorCategory::kData, r.node->error);
    std::optional<Hyperslab> slab;
    if (!r.selection.empty()) slab = Hyperslab::parse(r.selection, r.node->shape);
    check_printable(r.node->dtype, slab ? slab->count : r.node->shape, r.label);
    NDArray data = slab ? r.node->data->read(*slab) : r.node->data->read();
    if (data.byte_size() == 0 && ++empty_arrays_ > empty_budget_) {
      exhausted_ = true;
      throw Error(ErrorCategory::kLimit,
                  fmt::format("more than {} arrays of no bytes in one output; stopping at {} "
                              "(dump items by path, such as LIST/5, to see others)",
                              empty_budget_, r.label));
    }
    values = values_json(data);
    if (targets && data.dtype().kind() == DTypeKind::kPointer) {
      *targets = deref(values, data.dtype().size(), 0);
    }
  }

  // Replaces every key in `keys` (nested lists of pointer values) by its target: null for
  // a NULL pointer (0 or all ones [C19]), the pointee with its data the first time it is met
  // in this output, {"ref": KEY} after that. Each pointee is read and printed once, so a
  // graph whose pointees all point at each other costs its size, not its paths.
  json deref(const json& keys, size_t width, int depth) {
    if (keys.is_array()) {
      json out = json::array();
      for (const auto& k : keys) out.push_back(deref(k, width, depth));
      return out;
    }
    const uint64_t key = keys.get<uint64_t>();
    const uint64_t all_ones = width == 4 ? 0xffffffffu : ~uint64_t{0};
    if (key == 0 || key == all_ones) return nullptr;
    auto it = tree_.pointees.find(key);
    if (it == tree_.pointees.end()) return problem(fmt::format("no pointee with key {}", key));
    if (!shown_.insert(key).second) return json{{"ref", key}};
    if (depth >= kMaxDerefDepth) {
      return problem(fmt::format("pointer chain deeper than {} at key {}", kMaxDerefDepth, key));
    }
    const model::Node& target = *it->second;
    return node_json(target, [&](const model::Node& array, const std::string&, json& out) {
      try {
        json values;
        read({"", "", &array, ""}, values, nullptr);
        out["data"] = values;
        if (array.dtype.kind() == DTypeKind::kPointer) {
          out["target"] = deref(values, array.dtype.size(), depth + 1);
        }
      } catch (const Error& e) {
        out["error"] = e.what();
        report(e.what());
      }
    });
  }

  static constexpr uint64_t kMaxEmptyValues = uint64_t{1} << 20;

  void report(const std::string& message) {
    fmt::print(stderr, "{}\n", message);
    status_ = kExitInvalid;
  }

 private:
  json problem(const std::string& message) {
    report(message);
    return json{{"error", message}};
  }

  const model::Tree& tree_;
  std::set<uint64_t> shown_;  ///< pointees already printed in this output
  uint64_t empty_arrays_ = 0;
  uint64_t empty_budget_;
  bool exhausted_ = false;
  int status_ = kExitOk;
};

std::vector<Request> requests(const model::Tree& tree, const DumpOptions& options) {
  std::vector<Request> out;
  if (options.items.empty()) out.push_back({"", "/", tree.root.get(), "", true});
  for (const std::string& item : options.items) {
    const size_t bracket = item.find('[');
    const std::string path = item.substr(0, bracket);
    const model::Node* node = tree.find(path);
    if (!node) {
      throw Error(ErrorCategory::kUsage, fmt::format("no item {} in {}", path, options.data.data));
    }
    if (node->kind != model::NodeKind::kArray) {
      if (bracket != std::string::npos) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} is a {}: a selection applies to an array (select an item "
                                "by its path, {}/0)",
                                path, node->kind == model::NodeKind::kList ? "list" : "group",
                                path == "/" ? "" : path));
      }
      out.push_back({path, path, node, "", true});
    } else if (bracket == std::string::npos) {
      out.push_back({path, path, node, ""});
    } else {
      // Checked now, so a bad selection is a usage error before anything prints.
      (void)Hyperslab::parse(item.substr(bracket), node->shape);
      out.push_back({item, path, node, item.substr(bracket)});
    }
  }
  return out;
}

bool is_below(const std::string& path, const std::string& container) {
  if (container == "/" || container.empty()) return true;
  return path == container ||
         (path.size() > container.size() && path.compare(0, container.size(), container) == 0 &&
          path[container.size()] == '/');
}

int run_dump_one(const DumpOptions& options, bool member) {
  model::Tree tree = open_data(options.data);
  const std::vector<Request> wanted = requests(tree, options);
  Dumper dumper(tree, options.data.json);
  auto print_one = [&](const Request& r) {
    try {
      json values, targets;
      dumper.read(r, values, options.deref ? &targets : nullptr);
      if (member) fmt::print("{} ", options.data.data);
      fmt::print("{} = {}\n", r.label, json_text(values));
      if (!targets.is_null()) {
        fmt::print("{} -> {}\n", r.label, json_text(targets));
      }
    } catch (const Error& e) {
      dumper.report(e.what());
    }
  };
  if (!options.data.json) {
    for (const Request& r : wanted) {
      if (!r.below) {
        print_one(r);
        continue;
      }
      for_each_array(*r.node, r.path == "/" ? "" : r.path,
                     [&](const std::string& path, const model::Node& array) {
                       print_one({path, path, &array, ""});
                       return !dumper.exhausted();
                     });
      if (dumper.exhausted()) break;
    }
    return dumper.status();
  }
  // JSON: the ls tree, each requested array carrying its values.
  std::map<std::string, std::vector<const Request*>> by_path;
  std::vector<const Request*> containers;
  for (const Request& r : wanted) {
    if (r.below) {
      containers.push_back(&r);
    } else {
      by_path[r.path].push_back(&r);
    }
  }
  TreeWalk walk;
  walk.max_items = options.max_items;
  walk.stop = [&] { return dumper.exhausted(); };
  // Lists on the way to a requested item are shown up to it; below a requested group or list,
  // all of it.
  walk.reach = [&](const std::string& list) -> uint64_t {
    uint64_t reach = 0;
    for (const Request& r : wanted) {
      if (is_below(list, r.path) && r.below) return UINT64_MAX;
      const std::string prefix = (list == "/" ? "" : list) + "/";
      if (r.path.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rest = r.path.substr(prefix.size());
      if (auto index = path_index(rest.substr(0, rest.find('/')))) {
        reach = std::max<uint64_t>(reach, *index + 1);
      }
    }
    return reach;
  };
  walk.decorate = [&](const model::Node& array, const std::string& path, json& out) {
    std::vector<Request> here;
    if (auto it = by_path.find(path); it != by_path.end()) {
      for (const Request* r : it->second) here.push_back({r->label, path, &array, r->selection});
    }
    for (const Request* c : containers) {
      if (is_below(path, c->path)) {
        here.push_back({path, path, &array, ""});
        break;
      }
    }
    for (const Request& r : here) {
      try {
        json values, targets;
        dumper.read(r, values, options.deref ? &targets : nullptr);
        json& slot = r.selection.empty() ? out : out["selections"][r.selection];
        slot["data"] = values;
        if (!targets.is_null()) slot["target"] = targets;
      } catch (const Error& e) {
        out["error"] = e.what();
        dumper.report(e.what());
      }
    }
  };
  json root = node_json(*tree.root, walk);
  json out = {{"format", tree.format}};
  if (member) out["file"] = options.data.data;  // a family: one JSON line per member
  out["root"] = root;
  fmt::print("{}\n", json_text(out, member ? -1 : 2));
  return dumper.status();
}

int run_dump(const DumpOptions& given) {
  if (given.data.family.empty()) return run_dump_one(given, false);
  // With --family there is no DATA: the first positional argument is an item.
  DumpOptions options = given;
  if (!options.data.data.empty()) {
    options.items.insert(options.items.begin(), options.data.data);
    options.data.data.clear();
  }
  return for_each_member(options.data, [&](const DataOptions& m) {
    DumpOptions one = options;
    one.data = m;
    return run_dump_one(one, true);
  });
}

}  // namespace

void add_dump_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump",
      "Print array values: every array, or the named items. An item may carry a numpy-style "
      "selection: '/g/x[0:2, :]'. Groups and lists print every array below them.");
  add_data_options(*cmd, options->data);
  cmd->add_option("items", options->items, "Item paths, optionally with a selection");
  cmd->add_option("--max-items", options->max_items,
                  "With --json: items shown per list that holds no requested item (0: all)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find('-') == std::string::npos ? std::string() : "must be 0 or more";
          },
          "N>=0"))
      ->capture_default_str();
  cmd->add_flag("--deref", options->deref,
                "Follow pointers: print each pointer's target (its pointee, with data)");
  cmd->callback([options, &exit_code] { exit_code = run_dump(*options); });
}

}  // namespace dudley::cli
