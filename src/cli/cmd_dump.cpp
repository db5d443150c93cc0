// `dudley dump`: array values, whole or a selection.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"

namespace dudley::cli {

namespace {

struct DumpOptions {
  DataOptions data;
  std::vector<std::string> items;
};

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

int run_dump(const DumpOptions& options) {
  model::Tree tree = open_data(options.data);
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  int status = kExitOk;
  auto emit = [&](const std::string& label, const model::Node& node, const Hyperslab* slab) {
    if (!node.error.empty()) throw Error(ErrorCategory::kData, node.error);
    NDArray data = slab ? node.data->read(*slab) : node.data->read();
    auto json = values_json(data);
    if (options.data.json) {
      values[label] = json;
    } else {
      fmt::print("{} = {}\n", label, json.dump());
    }
  };
  if (options.items.empty()) {
    std::vector<std::pair<std::string, const model::Node*>> all;
    arrays_below(*tree.root, "", all);
    for (const auto& [path, node] : all) {
      try {
        emit(path, *node, nullptr);
      } catch (const Error& e) {
        fmt::print(stderr, "{}\n", e.what());
        status = kExitInvalid;
      }
    }
  }
  for (const std::string& item : options.items) {
    const size_t bracket = item.find('[');
    const std::string path = item.substr(0, bracket);
    const model::Node* node = tree.find(path);
    if (!node) {
      throw Error(ErrorCategory::kUsage, fmt::format("no item {} in {}", path, options.data.data));
    }
    if (node->kind != model::NodeKind::kArray) {
      std::vector<std::pair<std::string, const model::Node*>> below;
      arrays_below(*node, path == "/" ? "" : path, below);
      for (const auto& [p, n] : below) emit(p, *n, nullptr);
      continue;
    }
    if (bracket == std::string::npos) {
      emit(path, *node, nullptr);
    } else {
      Hyperslab slab = Hyperslab::parse(item.substr(bracket), node->shape);
      emit(item, *node, &slab);
    }
  }
  if (options.data.json) {
    nlohmann::ordered_json out = {{"format", tree.format}, {"values", values}};
    fmt::print("{}\n", out.dump(2));
  }
  return status;
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
  cmd->callback([options, &exit_code] { exit_code = run_dump(*options); });
}

}  // namespace dudley::cli
