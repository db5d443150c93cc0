// `dudley describe`: the NDL description of any file the model reads (ndl-resolutions.md).
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/failure.hpp"
#include "cli/output_file.hpp"
#include "cli/tree_json.hpp"
#include "cli/value_text.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/text.hpp"
#include "dudley/formats/ndl.hpp"
#include "dudley/io/atomic_file.hpp"
#include "dudley/io/redact.hpp"

namespace dudley::cli {

namespace {

struct DescribeCommandOptions {
  DataOptions data;
  bool values = false;
  std::string output;
  bool overwrite = false;  ///< --overwrite: replace -o's file although it is no NDL
};

int run_describe(const DescribeCommandOptions& options) {
  const model::Tree tree = open_data(options.data);
  ndl::DescribeOptions describe;
  describe.values = options.values;
  ndl::DescribeProblems problems;
  // Arrays that cannot be read make the description incomplete, as they make ls and dump
  // fail: exit 1, each named; what NDL cannot state is a warning (exit 0).
  if (options.data.json) {
    const std::string text = ndl::describe_text(tree, describe, problems);
    nlohmann::ordered_json out;
    out["file"] = io::redacted_url(options.data.data);
    out["format"] = tree.format;
    out["ndl"] = text;
    out["warnings"] = problems.warnings;
    out["errors"] = problems.errors;
    out["notes"] = problems.notes;
    const std::string json = json_text(out, 2) + "\n";
    std::fwrite(json.data(), 1, json.size(), stdout);
    for (const std::string& e : problems.errors) {
      fmt::print(
          stderr, "{}\n",
          escape_controls(io::redacted_text(fmt::format("{}: error: {}", options.data.data, e))));
    }
    return problems.errors.empty() ? kExitOk : kExitInvalid;
  }
  if (!options.output.empty()) {
    check_output_file(options.output, ndl_output(), input_files(options.data, &tree),
                      options.overwrite);
    io::AtomicFile file(options.output);
    uint64_t at = 0;
    ndl::describe(
        tree, describe,
        [&](std::string_view s) {
          file.write_at(at, s.data(), s.size());
          at += s.size();
        },
        problems);
    file.commit();
  } else {
    Output out(stdout);
    ndl::describe(
        tree, describe, [&](std::string_view s) { out.write(s); }, problems);
  }
  for (const std::string& n : problems.notes) fmt::print(stderr, "note: {}\n", escape_controls(n));
  for (const std::string& w : problems.warnings)
    fmt::print(stderr, "warning: {}\n", escape_controls(w));
  for (const std::string& e : problems.errors) {
    fmt::print(
        stderr, "{}\n",
        escape_controls(io::redacted_text(fmt::format("{}: error: {}", options.data.data, e))));
  }
  return problems.errors.empty() ? kExitOk : kExitInvalid;
}

}  // namespace

void add_describe_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DescribeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "describe",
      "Describe a data file of any format in the Ndarray Data Language (NDL, YAML): groups, "
      "arrays, dimension coordinates, attributes, types and storage (chunks, filters, byte "
      "order, fill value, current and maximum extent). What NDL cannot state is named on "
      "stderr.");
  add_data_options(*cmd, options->data, false);
  cmd->add_flag("--values", options->values,
                "Write the values of ndarrays and dimcoords too (attribute values always are)");
  cmd->add_option("-o,--output", options->output,
                  "Write the description to this file (replacing only an NDL description, "
                  "never an input)");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace -o's file although it is not an NDL description");
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->data.json, [&] { return run_describe(*options); });
  });
}

}  // namespace dudley::cli
