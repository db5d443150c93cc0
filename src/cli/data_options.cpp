#include "cli/data_options.hpp"

#ifdef DUDLEY_WITH_ASDF
#include "dudley/formats/asdf/reader.hpp"
#endif

#include <algorithm>
#include <cstdio>

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/dudley/family.hpp"
#include "dudley/formats/dudley/format.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {

void add_data_options(CLI::App& cmd, DataOptions& o, bool family) {
  cmd.add_option("data", o.data, family ? "Data file (or --family)" : "Data file");
  const std::string formats = fmt::format("{}", fmt::join(format_names(false), ", "));
  cmd.add_option("--format", o.format,
                 "Read DATA as this format (default: found from the file): " + formats)
      ->check(CLI::IsMember(format_names(false)));
  if (family) {
    cmd.add_option("--family", o.family,
                   "Every member of a file family: a quoted glob ('run_*.bin') or the family's "
                   "index (run.index.bin); replaces DATA");
  }
  cmd.add_flag("--json", o.json, "Print JSON (the format is in docs/cli.md)");
  // Options only Dudley data has, grouped so that --help says which format they are for.
  CLI::Option_group* dudley = cmd.add_option_group("Dudley format", "Reading Dudley data");
  dudley->add_option("--layout", o.layout,
                     "Layout file (default: NAME.dud beside data file NAME.*, or embedded)");
  dudley
      ->add_option("--order", o.order,
                   "Byte order of '|' types when the layout has no !DUDLEY signature")
      ->check(CLI::IsMember({"little", "big"}));
  // One value per --param: `--param N=5 data.bin /x` must not take data.bin as a second.
  dudley
      ->add_option("--param", o.params,
                   "Give a parameter's value: NAME=VALUE or /group/NAME=VALUE (repeat the "
                   "option for each)")
      ->allow_extra_args(false);
  dudley->add_flag("--params-absent", o.params_absent,
                   "Dynamic parameters are not stored in the file (they take no bytes); give "
                   "them all with --param");
  CLI::Option_group* asdf = cmd.add_option_group("ASDF format", "Reading ASDF files");
  asdf->add_flag("--no-checksums", o.no_checksums, "Do not verify the blocks' MD5 checksums");
  asdf->add_flag("--allow-external-outside", o.allow_external_outside,
                 "Let array sources name files outside the ASDF file's directory");
  asdf->add_option("--max-block-size", o.max_block_size,
                   "Largest block (decompressed bytes) to read (default: physical memory)");
}

std::vector<std::string> format_names(bool writers) {
  std::vector<std::string> names;
  for (const Format* f : FormatRegistry::builtin().formats()) {
    if (!writers || f->can_save()) names.push_back(f->name());
  }
  return names;
}

std::vector<DataOptions> family_members(const DataOptions& o) {
  std::vector<DataOptions> out;
  if (layout::is_family_index(o.family)) {
    const layout::FamilyIndex index = layout::read_family_index(o.family);
    for (size_t i = 0; i < index.files.size(); ++i) {
      DataOptions m = o;
      m.data = index.files[i];
      if (m.layout.empty()) m.layout = index.layout_path;
      for (size_t k = 0; k < index.param_paths.size(); ++k) {
        m.params.push_back(fmt::format("{}={}", index.param_paths[k], index.values[i][k]));
      }
      m.params_absent = !index.params_in_files;
      out.push_back(std::move(m));
    }
    return out;
  }
  for (const std::string& file : layout::family_members(o.family)) {
    DataOptions m = o;
    m.data = file;
    out.push_back(std::move(m));
  }
  return out;
}

int exit_status_for(const Error& e) {
  const ErrorCategory c = e.category();
  return c == ErrorCategory::kIo || c == ErrorCategory::kUsage ? kExitError : kExitInvalid;
}

int for_each_member(const DataOptions& options,
                    const std::function<int(const DataOptions& member)>& one) {
  int status = kExitOk;
  for (const DataOptions& m : family_members(options)) {
    try {
      status = std::max(status, one(m));
    } catch (const Error& e) {
      status = std::max(status, report_failure(e, options.json, m.data));
    }
  }
  return status;
}

model::Tree open_data(const DataOptions& o) {
  if (o.data.empty()) throw Error(ErrorCategory::kUsage, "give a data file (or --family)");
  layout::BindOptions bind;
  if (o.order == "little") bind.default_order = ByteOrder::kLittle;
  if (o.order == "big") bind.default_order = ByteOrder::kBig;
  bind.params_absent = o.params_absent;
  for (const std::string& p : o.params) {
    size_t eq = p.find('=');
    int64_t value = 0;
    const char* begin = p.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* end = p.data() + p.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != end) {
      throw Error(ErrorCategory::kUsage, "--param " + p + ": expected NAME=INTEGER");
    }
    bind.params[p.substr(0, eq)] = value;
  }
  try {
    layout::DudleyOpenOptions dudley_options;
    dudley_options.layout = o.layout;
    dudley_options.bind = std::move(bind);
    OpenOptions options;
    options.format = o.format;
    // A layout given means Dudley data, whatever the file looks like.
    if (options.format.empty() && !o.layout.empty()) options.format = "dudley";
    options.formats.set(std::move(dudley_options));
#ifdef DUDLEY_WITH_ASDF
    asdf::AsdfOpenOptions asdf_options;
    asdf_options.verify_checksums = !o.no_checksums;
    asdf_options.allow_external_outside = o.allow_external_outside;
    asdf_options.max_block_bytes = o.max_block_size;
    options.formats.set(std::move(asdf_options));
#endif
    return dudley::open(o.data, options);
  } catch (const Error& e) {
    // A glob given as DATA reaches here only when the shell did not expand it (it matched
    // nothing, or was quoted): say how families are read.
    if (e.category() == ErrorCategory::kIo && o.data.find_first_of("*?[") != std::string::npos) {
      throw Error(e.category(),
                  fmt::format("{} (to read every file a pattern matches, quote it and give it "
                              "to --family: --family '{}')",
                              e.message(), o.data),
                  e.location());
    }
    throw;
  }
}

}  // namespace dudley::cli
