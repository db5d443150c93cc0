// `dudley fmt`: print a layout in canonical form.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "cli/output_file.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/layout/syntax/diagnostic_format.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::cli {

namespace {

struct FmtOptions {
  std::string path;
  std::string output;
  bool in_place = false;
  bool check = false;
  bool overwrite = false;  ///< --overwrite: replace -o's file although it is no layout
};

int run_fmt(const FmtOptions& options) {
  std::string text = read_text_file(options.path);
  layout::ParseOptions parse_options;
  parse_options.keep_comments = true;     // fmt rewrites files: every comment is kept
  parse_options.check_attributes = true;  // and refuses a layout whose attributes are wrong
  layout::ParseResult result = layout::parse_layout(text, parse_options);
  if (!result.ok()) {
    for (const auto& d : result.diagnostics) {
      fmt::print(stderr, "{}", layout::format_diagnostic(d, options.path, text));
    }
    return kExitInvalid;
  }
  std::string canonical = layout::emit_layout(result.layout, result.source);
  if (options.check) {
    if (canonical == text) return kExitOk;
    fmt::print(stderr, "{}: not in canonical form (run 'dudley fmt -i {}')\n", options.path,
               options.path);
    return kExitInvalid;
  }
  if (options.in_place) {
    write_file_atomically(options.path, canonical);
  } else if (!options.output.empty()) {
    check_output_file(options.output, layout_output(), {options.path}, options.overwrite);
    write_file_atomically(options.output, canonical);
  } else {
    std::fwrite(canonical.data(), 1, canonical.size(), stdout);
  }
  return kExitOk;
}

}  // namespace

void add_fmt_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FmtOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fmt",
      "Print a layout in canonical form: one declaration a line, two-space indentation, "
      "decimal addresses, every comment kept. The result parses to the same layout.");
  cmd->add_option("layout", options->path, "Layout file (.dud); '-' reads stdin")->required();
  auto* out =
      cmd->add_option("-o,--output", options->output, "Write to this file instead of stdout");
  cmd->add_flag("-i,--in-place", options->in_place, "Rewrite the layout file itself")
      ->excludes(out);
  cmd->add_flag("--check", options->check,
                "Write nothing; exit 1 when the file is not already canonical");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace -o's file although it is not a Dudley layout");
  cmd->callback(
      [options, &exit_code] { exit_code = guarded(false, [&] { return run_fmt(*options); }); });
}

}  // namespace dudley::cli
