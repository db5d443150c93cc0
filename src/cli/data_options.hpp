// Options shared by the commands that open data files (ls, dump), and opening with them.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "dudley/core/error.hpp"
#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

struct DataOptions {
  std::string data;
  std::string format;  ///< --format: read DATA as this format; empty: found from the file
  bool json = false;
  std::string family;  ///< a glob pattern of member files, or a family index
  /// The formats' own reading options given (--layout, --no-checksums, ...), by name.
  GivenOptions given;
  /// The paths the command will look at (OpenOptions::wanted); empty: all.
  std::vector<std::string> wanted;
  /// Ask the format where the file stores each array's extents (OpenOptions).
  bool extent_offsets = false;
  /// Folders that what the data names (links, external storage and sources, a family
  /// index's members) may also be read from (--allow-outside DIR; OpenOptions).
  std::vector<std::string> allow_outside;
  /// How s3:// paths are reached (--endpoint-url, --no-sign-request, --profile, --region).
  io::S3Options s3;
};

/// The members of `options.family`, each as the options that open it (its data path and,
/// from an index, what the index's format says reading it needs: a layout, parameters).
/// Throws Error when there are none.
std::vector<DataOptions> family_members(const DataOptions& options);

/// Runs `one` on every member of the family, in order. A member that fails as a whole (its
/// file is missing, its layout broken) is reported on stderr with its name and the others
/// are still read; returns the worst exit status.
int for_each_member(const DataOptions& options,
                    const std::function<int(const DataOptions& member)>& one);

/// The exit status for an error that stopped a command: 2 when it could not run (I/O,
/// usage), 1 when an input was read but is wrong.
int exit_status_for(const Error& e);

/// Registers the options of s3:// paths (--endpoint-url, --no-sign-request, --profile,
/// --region) on `cmd`, into `s3`.
void add_s3_options(CLI::App& cmd, io::S3Options& s3);

/// Registers DATA, --format, --json, --allow-outside, every format's reading options
/// (grouped under the format's name) on `cmd`, and --family when `family` (commands that
/// read one file at a time).
void add_data_options(CLI::App& cmd, DataOptions& options, bool family = true);

/// Registers every format's options of `use` on `cmd`, each in a group named after its
/// format ("ASDF format"), storing what is given in `given`.
void add_format_options(CLI::App& cmd, FormatOption::Use use, GivenOptions& given);

/// The options of the formats given in `given` for `use`, as the formats' own options of
/// `options` (OpenOptions or SaveOptions): each format takes the ones it declared.
void apply_format_options(const GivenOptions& given, OpenOptions& options);
void apply_format_options(const GivenOptions& given, SaveOptions& options);

/// The format a given option selects (Dudley's --layout: Dudley data), or "".
std::string format_selected_by(const GivenOptions& given);

/// The formats owning the options in `given` of `use`, by option name.
std::map<std::string, std::string> owners_of(const GivenOptions& given, FormatOption::Use use);

/// The names of the formats this build reads (`writers`: writes).
std::vector<std::string> format_names(bool writers);

/// Opens the data file as a model tree. Throws dudley::Error on failure.
model::Tree open_data(const DataOptions& options);

}  // namespace dudley::cli
