// `dudley check`: parse and statically check layouts, report every error like a compiler.
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/text.hpp"
#include "dudley/io/redact.hpp"
#include "dudley/layout/syntax/diagnostic_format.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::cli {

namespace {

struct CheckOptions {
  std::vector<std::string> paths;
  bool force_template = false;
  bool json = false;
  size_t max_errors = 50;
};

int run_check(const CheckOptions& options) {
  int worst = kExitOk;
  nlohmann::json report = nlohmann::json::array();
  for (const auto& path : options.paths) {
    // A path may be a URL: named without its secrets (query, user:password@) everywhere.
    const std::string shown = io::redacted_url(path);
    nlohmann::json entry = {{"file", shown}};
    std::string text;
    try {
      text = read_text_file(path);
    } catch (const Error& e) {
      worst = kExitError;
      if (options.json) {
        entry["ok"] = false;
        entry["error"] = io::redacted_text(e.message());
        report.push_back(entry);
      } else {
        fmt::print(stderr, "{}\n", shown_message(e.what()));
      }
      continue;
    }
    layout::ParseOptions parse_options;
    parse_options.force_template_check = options.force_template;
    parse_options.check_attributes = true;  // every `#@` read now, its mistakes reported
    parse_options.max_errors = options.max_errors == 0 ? SIZE_MAX : options.max_errors;
    layout::ParseResult result = layout::parse_layout(text, parse_options);
    if (!result.ok() && worst == kExitOk) worst = kExitInvalid;
    if (options.json) {
      entry["ok"] = result.ok();
      entry["diagnostics"] = nlohmann::json::array();
      for (const auto& d : result.diagnostics) {
        entry["diagnostics"].push_back({{"line", d.line},
                                        {"column", d.column},
                                        {"code", layout::diag_code_name(d.code)},
                                        {"message", io::redacted_text(d.message)}});
      }
      const auto& l = result.layout;
      entry["counts"] = {{"nodes", l.nodes.size()},
                         {"parameters", l.params.size()},
                         {"types", l.types.size()},
                         {"pointees", l.pointees.size()}};
      report.push_back(entry);
      continue;
    }
    for (const auto& d : result.diagnostics) {
      fmt::print(stderr, "{}", shown_message(layout::format_diagnostic(d, shown, text)));
    }
    if (result.ok()) fmt::print("{}: ok\n", escape_controls(shown));
  }
  if (options.json) fmt::print("{}\n", json_text(report, 2));
  return worst;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Parse layouts and check them without data: syntax, scopes, types, names, pointees and "
      "(with !TEMPLATE or --template) the template rules. Exit 0 when all are valid, 1 when "
      "some are not, 2 when a file cannot be read.");
  cmd->add_option("layouts", options->paths, "Layout files (.dud); '-' reads stdin")->required();
  cmd->add_flag("--template", options->force_template,
                "Apply the !TEMPLATE rules even without the directive");
  cmd->add_flag("--json", options->json, "Print a JSON report on stdout instead of diagnostics");
  cmd->add_option("--max-errors", options->max_errors,
                  "Stop a file after this many errors (0: no limit, as gcc's -fmax-errors)")
      ->default_val(50)
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "expected a count of errors (0 for no limit), not '" + v + "'";
          },
          "N>=0"));
  cmd->callback([options, &exit_code] { exit_code = run_check(*options); });
}

}  // namespace dudley::cli
