// `dudley dump`: array values, whole or a selection, and pointer targets with --deref.
#include <algorithm>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"

namespace dudley::cli {

namespace {

using json = nlohmann::ordered_json;

struct DumpOptions {
  DataOptions data;
  std::vector<std::string> items;
  bool deref = false;
};

// Pointees may hold pointers in turn; a chain longer than this is reported, not followed.
constexpr int kMaxDerefDepth = 16;

// Every array below `node`, with its path.
void arrays_below(const model::Node& node, const std::string& path,
                  std::vector<std::pair<std::string, const model::Node*>>& out) {
  if (node.kind == model::NodeKind::kArray) {
    out.emplace_back(path, &node);
    return;
  }
  for (size_t i = 0; i < node.children.size(); ++i) {
    const auto& c = node.children[i];
    std::string child =
        node.kind == model::NodeKind::kList ? fmt::format("{}/{}", path, i) : path + "/" + c->name;
    arrays_below(*c, child, out);
  }
}

// One array to print: its label (the path, with the selection as given) and selection.
struct Request {
  std::string label;
  const model::Node* node = nullptr;
  std::string selection;  // "" for the whole array
};

class Dumper {
 public:
  explicit Dumper(const model::Tree& tree) : tree_(tree) {}

  int status() const { return status_; }

  // The values of one request ("data" or a selection), with targets when dereferencing.
  void read(const Request& r, json& values, json* targets) {
    if (!r.node->error.empty()) throw Error(ErrorCategory::kData, r.node->error);
    NDArray data = r.selection.empty()
                       ? r.node->data->read()
                       : r.node->data->read(Hyperslab::parse(r.selection, r.node->shape));
    values = values_json(data);
    if (targets && data.dtype().kind() == DTypeKind::kPointer) {
      *targets = deref(values, data.dtype().size(), 0);
    }
  }

  // Replaces every key in `keys` (nested lists of pointer values) by its target: null for
  // a NULL pointer (0 or all ones [C19]), the pointee with its data otherwise.
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
    if (depth >= kMaxDerefDepth) {
      return problem(fmt::format("pointer chain deeper than {} at key {}", kMaxDerefDepth, key));
    }
    const model::Node& target = *it->second;
    return node_json(target, [&](const model::Node& array, json& out) {
      try {
        json values;
        read({"", &array, ""}, values, nullptr);
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
  int status_ = kExitOk;
};

std::vector<Request> requests(const model::Tree& tree, const DumpOptions& options) {
  std::vector<Request> out;
  auto all_below = [&](const model::Node& node, const std::string& path) {
    std::vector<std::pair<std::string, const model::Node*>> below;
    arrays_below(node, path == "/" ? "" : path, below);
    for (const auto& [p, n] : below) out.push_back({p, n, ""});
  };
  if (options.items.empty()) all_below(*tree.root, "");
  for (const std::string& item : options.items) {
    const size_t bracket = item.find('[');
    const std::string path = item.substr(0, bracket);
    const model::Node* node = tree.find(path);
    if (!node) {
      throw Error(ErrorCategory::kUsage, fmt::format("no item {} in {}", path, options.data.data));
    }
    if (node->kind != model::NodeKind::kArray) {
      all_below(*node, path);
    } else if (bracket == std::string::npos) {
      out.push_back({path, node, ""});
    } else {
      // Checked now, so a bad selection is a usage error before anything prints.
      (void)Hyperslab::parse(item.substr(bracket), node->shape);
      out.push_back({item, node, item.substr(bracket)});
    }
  }
  return out;
}

int run_dump_one(const DumpOptions& options, bool member) {
  model::Tree tree = open_data(options.data);
  const std::vector<Request> wanted = requests(tree, options);
  Dumper dumper(tree);
  if (!options.data.json) {
    for (const Request& r : wanted) {
      try {
        json values, targets;
        dumper.read(r, values, options.deref ? &targets : nullptr);
        if (member) fmt::print("{} ", options.data.data);
        fmt::print("{} = {}\n", r.label, values.dump());
        if (!targets.is_null()) fmt::print("{} -> {}\n", r.label, targets.dump());
      } catch (const Error& e) {
        dumper.report(e.what());
      }
    }
    return dumper.status();
  }
  // JSON: the ls tree, each requested array carrying its values.
  std::map<const model::Node*, std::vector<const Request*>> by_node;
  for (const Request& r : wanted) by_node[r.node].push_back(&r);
  json root = node_json(*tree.root, [&](const model::Node& array, json& out) {
    auto it = by_node.find(&array);
    if (it == by_node.end()) return;
    for (const Request* r : it->second) {
      try {
        json values, targets;
        dumper.read(*r, values, options.deref ? &targets : nullptr);
        json& slot = r->selection.empty() ? out : out["selections"][r->selection];
        slot["data"] = values;
        if (!targets.is_null()) slot["target"] = targets;
      } catch (const Error& e) {
        out["error"] = e.what();
        dumper.report(e.what());
      }
    }
  });
  json out = {{"format", tree.format}};
  if (member) out["file"] = options.data.data;  // a family: one JSON line per member
  out["root"] = root;
  fmt::print("{}\n", member ? out.dump() : out.dump(2));
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
  cmd->add_flag("--deref", options->deref,
                "Follow pointers: print each pointer's target (its pointee, with data)");
  cmd->callback([options, &exit_code] { exit_code = run_dump(*options); });
}

}  // namespace dudley::cli
