// The one file a command writes with -o (plot's PNG, describe's NDL, layout's and fmt's
// layout text). Like convert's destination (docs/cli.md, "What is already at DST"), it
// replaces only a file of its own kind, and never one of the command's inputs: `plot DATA
// ITEM -o DATA` would otherwise turn the user's data into a picture.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/data_options.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

/// What a command's output file may replace: files `is_kind` recognises (from the file's
/// path and its first 4 KiB), named `kind` in messages ("a PNG picture").
struct OutputKind {
  std::string kind;
  std::function<bool(const std::string& path, std::string_view head)> is_kind;
};

/// Refuses (Error(kUsage) at `path`: exit 2) the output `path` when it is one of `inputs`
/// (the same file, by any name), or, unless `overwrite`, when it exists and is not of
/// `what` kind. Nothing when it does not exist.
void check_output_file(const std::string& path, const OutputKind& what,
                       const std::vector<std::string>& inputs, bool overwrite);

/// The files reading `options.data` read (the data, the files its format reads beside it,
/// and, given the opened `tree`, the files it read): what no output may replace. `open`,
/// when given, is how the data was opened (its format options name further inputs).
std::vector<std::string> input_files(const DataOptions& options, const model::Tree* tree = nullptr,
                                     const OpenOptions* open = nullptr);

/// Output kinds: a PNG picture (its signature), an NDL description (a file that reads as
/// NDL), Dudley layout text (a file that parses as a layout).
OutputKind png_output();
OutputKind ndl_output();
OutputKind layout_output();

}  // namespace dudley::cli
