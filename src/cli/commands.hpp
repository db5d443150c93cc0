// Subcommands of the `dudley` tool. Each registers its options on the CLI11 app and returns
// the exit code through the callback it installs.
#pragma once

#include <CLI/CLI.hpp>

namespace dudley::cli {

/// Exit codes shared by every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitInvalid = 1,  ///< the input was read but is not valid (diagnostics printed)
  kExitError = 2,    ///< the command could not run (missing file, bad arguments)
};

/// `dudley check LAYOUT...`
void add_check_command(CLI::App& app, int& exit_code);
/// `dudley fmt LAYOUT`
void add_fmt_command(CLI::App& app, int& exit_code);
/// `dudley ls DATA`
void add_ls_command(CLI::App& app, int& exit_code);
/// `dudley dump DATA [ITEM...]`
void add_dump_command(CLI::App& app, int& exit_code);
/// `dudley convert SRC DST`
void add_convert_command(CLI::App& app, int& exit_code);
/// `dudley describe DATA` (builds with the NDL module)
void add_describe_command(CLI::App& app, int& exit_code);
/// `dudley layout DATA` / `--family GLOB`: a Dudley layout for a file of another format
void add_layout_command(CLI::App& app, int& exit_code);
/// `dudley plot DATA ITEM -o out.png`: a figure of an item's values
void add_plot_command(CLI::App& app, int& exit_code);
/// `dudley view DATA`: a local web viewer
void add_view_command(CLI::App& app, int& exit_code);
/// `dudley avro decode|encode` (builds with the Avro module)
void add_avro_command(CLI::App& app, int& exit_code);

}  // namespace dudley::cli
