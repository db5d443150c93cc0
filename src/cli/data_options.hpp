// Options shared by the commands that open data files (ls, dump), and opening with them.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "dudley/core/error.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

struct DataOptions {
  std::string data;
  std::string format;  ///< --format: read DATA as this format; empty: found from the file
  std::string layout;
  std::string order;
  std::vector<std::string> params;  ///< NAME=VALUE
  bool params_absent = false;
  bool json = false;
  std::string family;  ///< a glob pattern of member files, or a family index
  // ASDF
  bool no_checksums = false;            ///< --no-checksums
  bool allow_external_outside = false;  ///< --allow-external-outside
  uint64_t max_block_size = 0;          ///< --max-block-size (0: physical memory)
};

/// The members of `options.family`, each as the options that open it (its data path, the
/// family layout, and, from an index, its parameters). Throws Error when there are none.
std::vector<DataOptions> family_members(const DataOptions& options);

/// Runs `one` on every member of the family, in order. A member that fails as a whole (its
/// file is missing, its layout broken) is reported on stderr with its name and the others
/// are still read; returns the worst exit status.
int for_each_member(const DataOptions& options,
                    const std::function<int(const DataOptions& member)>& one);

/// The exit status for an error that stopped a command: 2 when it could not run (I/O,
/// usage), 1 when an input was read but is wrong.
int exit_status_for(const Error& e);

/// Registers DATA, --layout, --order, --param, --params-absent and --json on `cmd`, and
/// --family when `family` (commands that read one file at a time).
void add_data_options(CLI::App& cmd, DataOptions& options, bool family = true);

/// The names of the formats this build reads (`writers`: writes).
std::vector<std::string> format_names(bool writers);

/// Opens the data file as a model tree. Throws dudley::Error on failure.
model::Tree open_data(const DataOptions& options);

}  // namespace dudley::cli
