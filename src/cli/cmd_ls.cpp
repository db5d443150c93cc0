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
void print_node(const model::Node& node, const std::string& path,
                std::vector<std::string>& errors) {
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
      for (const auto& c : node.children) print_node(*c, path + "/" + c->name, errors);
      break;
    }
    case model::NodeKind::kList:
      fmt::print("{:<32} list of {}{}\n", path, node.children.size(), doc);
      for (size_t i = 0; i < node.children.size(); ++i) {
        print_node(*node.children[i], fmt::format("{}/{}", path, i), errors);
      }
      break;
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

void collect_errors(const model::Node& node, std::vector<std::string>& errors) {
  if (!node.error.empty()) errors.push_back(node.error);
  for (const auto& p : node.params) {
    if (!p.error.empty()) errors.push_back(p.error);
  }
  for (const auto& c : node.children) collect_errors(*c, errors);
}

int run_ls_one(const DataOptions& options, bool member) {
  model::Tree tree = open_data(options);
  std::vector<std::string> errors;
  if (options.json) {
    nlohmann::ordered_json out = {{"format", tree.format}};
    if (member) out["file"] = options.data;  // a family: one JSON line per member
    out["root"] = node_json(*tree.root);
    fmt::print("{}\n", member ? out.dump() : out.dump(2));
    collect_errors(*tree.root, errors);
  } else {
    print_node(*tree.root, "", errors);
  }
  // Items placed after a broken one share its error (their addresses depend on it): once.
  std::unordered_set<std::string_view> reported;
  for (const auto& e : errors) {
    if (reported.insert(e).second) fmt::print(stderr, "{}\n", e);
  }
  return errors.empty() ? kExitOk : kExitInvalid;
}

int run_ls(const DataOptions& options) {
  if (options.family.empty()) return run_ls_one(options, false);
  if (!options.data.empty()) throw Error(ErrorCategory::kUsage, "give DATA or --family, not both");
  return for_each_member(options, [&](const DataOptions& m) {
    if (!options.json) fmt::print("== {}\n", m.data);
    return run_ls_one(m, true);
  });
}

}  // namespace

void add_ls_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DataOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ls",
      "List a data file through its layout: every group, list and array (type, shape, byte "
      "address, doc) and every parameter with its value. Exit 1 when some item cannot be "
      "resolved (each is reported with its place).");
  add_data_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_ls(*options); });
}

}  // namespace dudley::cli
