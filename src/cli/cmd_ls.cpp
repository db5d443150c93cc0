// `dudley ls`: the tree of a data file: groups, lists, arrays with type, shape and address,
// parameters with their values.
#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"

namespace dudley::cli {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string type_text(const DType& t) {
  return t.kind() == DTypeKind::kCompound ? fmt::format("struct {} ({} bytes)", t.name(), t.size())
                                          : t.to_string();
}

// One line per item, like `h5ls -r`; collects the items that could not be resolved.
void print_node(const model::Node& node, const std::string& path, std::vector<std::string>& errors,
                uint64_t max_items) {
  std::string doc = node.doc.empty() ? "" : "  # " + node.doc.substr(0, node.doc.find('\n'));
  switch (node.kind) {
    case model::NodeKind::kGroup: {
      fmt::print("{:<32} group{}\n", path.empty() ? "/" : path, doc);
      for (const auto& p : node.params) {
        std::string where = path + "/" + p.name;
        if (!p.error.empty()) {
          fmt::print("{:<32} parameter: ERROR\n", where);
          errors.push_back(p.error);
          continue;
        }
        std::string stored = p.dtype ? fmt::format(" {}", type_text(*p.dtype)) : "";
        std::string at = p.address ? fmt::format(" @ {}", *p.address) : "";
        fmt::print("{:<32} parameter = {}{}{}\n", where, *p.value, stored, at);
      }
      for_each_child(node, [&](uint64_t, const model::Node& c) {
        print_node(c, path + "/" + c.name, errors, max_items);
        return true;
      });
      break;
    }
    case model::NodeKind::kList: {
      const uint64_t count = model::child_count(node);
      fmt::print("{:<32} list of {}{}\n", path, count, doc);
      uint64_t shown = 0;
      for_each_child(node, [&](uint64_t i, const model::Node& c) {
        if (max_items != 0 && i >= max_items) return false;
        print_node(c, fmt::format("{}/{}", path, i), errors, max_items);
        shown = i + 1;
        return true;
      });
      if (max_items != 0 && shown == max_items && count > shown) {
        fmt::print("{:<32} ... {} more items (--max-items 0 lists all)\n", path, count - shown);
      }
      break;
    }
    case model::NodeKind::kArray:
      if (!node.error.empty()) {
        fmt::print("{:<32} array: ERROR\n", path);
        errors.push_back(node.error);
        break;
      }
      fmt::print("{:<32} array {} {} @ {}{}\n", path, type_text(node.dtype), shape_text(node.shape),
                 node.address.value_or(0), doc);
      break;
  }
}

// The errors in a tree as printed: the JSON of each node says what could not be read.
void collect_errors(const nlohmann::ordered_json& node, std::vector<std::string>& errors) {
  std::vector<const nlohmann::ordered_json*> pending{&node};  // no recursion: JSON can nest
  while (!pending.empty()) {
    const nlohmann::ordered_json& n = *pending.back();
    pending.pop_back();
    if (n.contains("error")) errors.push_back(n["error"].get<std::string>());
    for (const char* key : {"members", "params", "items"}) {
      if (!n.contains(key)) continue;
      for (const auto& c : n[key]) pending.push_back(&c);
    }
  }
}

struct LsOptions {
  DataOptions data;
  uint64_t max_items = 1000;
};

int run_ls_one(const LsOptions& ls, const DataOptions& options, bool member) {
  model::Tree tree = open_data(options);
  std::vector<std::string> errors;
  if (options.json) {
    nlohmann::ordered_json out = {{"format", tree.format}};
    if (member) out["file"] = options.data;  // a family: one JSON line per member
    out["root"] = node_json(*tree.root, TreeWalk{{}, ls.max_items, {}, {}});
    fmt::print("{}\n", json_text(out, member ? -1 : 2));
    collect_errors(out["root"], errors);
  } else {
    print_node(*tree.root, "", errors, ls.max_items);
  }
  // Items placed after a broken one share its error (their addresses depend on it): once.
  std::unordered_set<std::string_view> reported;
  for (const auto& e : errors) {
    if (reported.insert(e).second) fmt::print(stderr, "{}\n", e);
  }
  return errors.empty() ? kExitOk : kExitInvalid;
}

int run_ls(const LsOptions& ls) {
  const DataOptions& options = ls.data;
  if (options.family.empty()) return run_ls_one(ls, options, false);
  if (!options.data.empty()) throw Error(ErrorCategory::kUsage, "give DATA or --family, not both");
  return for_each_member(options, [&](const DataOptions& m) {
    if (!options.json) fmt::print("== {}\n", m.data);
    return run_ls_one(ls, m, true);
  });
}

}  // namespace

void add_ls_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ls",
      "List a data file through its layout: every group, list and array (type, shape, byte "
      "address, doc) and every parameter with its value. Exit 1 when some item cannot be "
      "resolved (each is reported with its place).");
  add_data_options(*cmd, options->data);
  cmd->add_option("--max-items", options->max_items,
                  "Items listed per list (0: all); the rest are counted, not listed")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find('-') == std::string::npos ? std::string() : "must be 0 or more";
          },
          "N>=0"))
      ->capture_default_str();
  cmd->callback([options, &exit_code] { exit_code = run_ls(*options); });
}

}  // namespace dudley::cli
