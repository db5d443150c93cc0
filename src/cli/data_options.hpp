// Options shared by the commands that open data files (ls, dump), and opening with them.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "dudley/model/tree.hpp"

namespace dudley::cli {

struct DataOptions {
  std::string data;
  std::string layout;
  std::string order;
  std::vector<std::string> params;  ///< NAME=VALUE
  bool params_absent = false;
  bool json = false;
  std::string family;  ///< a glob pattern of member files, or a family index
};

/// The members of `options.family`, each as the options that open it (its data path, the
/// family layout, and, from an index, its parameters). Throws Error when there are none.
std::vector<DataOptions> family_members(const DataOptions& options);

/// Registers DATA, --layout, --order, --param, --params-absent and --json on `cmd`.
void add_data_options(CLI::App& cmd, DataOptions& options);

/// Opens the data file as a model tree. Throws dudley::Error on failure.
model::Tree open_data(const DataOptions& options);

}  // namespace dudley::cli
