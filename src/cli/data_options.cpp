#include "cli/data_options.hpp"

#include <algorithm>
#include <cstdio>

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/io/file_glob.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {

namespace {

// Each format's command-line options, listed once: a family of 1,000 members opens each
// with the same options, and building the lists again for each cost a tenth of the time.
const std::vector<FormatOption>& options_of(const Format& f) {
  static const std::map<const Format*, std::vector<FormatOption>> all = [] {
    std::map<const Format*, std::vector<FormatOption>> m;
    for (const Format* each : FormatRegistry::builtin().formats()) m[each] = each->cli_options();
    return m;
  }();
  static const std::vector<FormatOption> none;
  auto it = all.find(&f);
  return it == all.end() ? none : it->second;
}

}  // namespace

namespace {

// "ASDF format" / "ASDF output": the --help group of a format's options.
std::string group_title(const Format& f, FormatOption::Use use) {
  std::string name = f.name();
  // Acronyms in capitals, names in title case: "ASDF", "Dudley", "Zarr".
  if (name.size() <= 4) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  } else {
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  }
  return name + (use == FormatOption::Use::kReading ? " format" : " output");
}

}  // namespace

void add_format_options(CLI::App& cmd, FormatOption::Use use, GivenOptions& given) {
  for (const Format* f : FormatRegistry::builtin().formats()) {
    CLI::Option_group* group = nullptr;
    for (const FormatOption& o : options_of(*f)) {
      if (o.use != use) continue;
      if (!group) {
        group = cmd.add_option_group(
            group_title(*f, use),
            (use == FormatOption::Use::kReading ? "Reading " : "Writing ") + f->description());
      }
      const std::string name = o.name;
      // An option several formats share (--max-block-size: ASDF and Avro) is added once,
      // with the first one's help; own_options hands its value to each that declares it.
      if (cmd.get_option_no_throw(name) != nullptr) continue;
      CLI::Option* option = nullptr;
      switch (o.kind) {
        case FormatOption::Kind::kFlag:
          option = group->add_flag_callback(
              name, [&given, name] { given[name] = {"true"}; }, o.help);
          break;
        case FormatOption::Kind::kValue:
          option = group->add_option_function<std::string>(
              name, [&given, name](const std::string& v) { given[name] = {v}; }, o.help);
          break;
        case FormatOption::Kind::kUnsigned:
          option = group->add_option_function<uint64_t>(
              name, [&given, name](uint64_t v) { given[name] = {std::to_string(v)}; }, o.help);
          break;
        case FormatOption::Kind::kList:
          // One value per use: `--param N=5 data.bin /x` must not take data.bin as a second.
          option = group
                       ->add_option_function<std::vector<std::string>>(
                           name,
                           [&given, name](const std::vector<std::string>& v) {
                             auto& all = given[name];
                             all.insert(all.end(), v.begin(), v.end());
                           },
                           o.help)
                       ->allow_extra_args(false);
          break;
      }
      if (!o.choices.empty()) option->check(CLI::IsMember(o.choices));
      if (o.existing_file) option->check(CLI::ExistingFile);
    }
  }
}

namespace {

// The options of `given` that format `f` declared for `use`.
GivenOptions own_options(const Format& f, const GivenOptions& given, FormatOption::Use use) {
  GivenOptions own;
  for (const FormatOption& o : options_of(f)) {
    if (o.use != use) continue;
    if (auto it = given.find(o.name); it != given.end()) own.insert(*it);
  }
  return own;
}

}  // namespace

void apply_format_options(const GivenOptions& given, OpenOptions& options) {
  for (const Format* f : FormatRegistry::builtin().formats()) {
    f->apply_open_options(own_options(*f, given, FormatOption::Use::kReading), options);
  }
}

void apply_format_options(const GivenOptions& given, SaveOptions& options) {
  for (const Format* f : FormatRegistry::builtin().formats()) {
    f->apply_save_options(own_options(*f, given, FormatOption::Use::kWriting), options);
  }
}

std::string format_selected_by(const GivenOptions& given) {
  for (const Format* f : FormatRegistry::builtin().formats()) {
    for (const FormatOption& o : options_of(*f)) {
      if (o.selects_format && given.count(o.name)) return f->name();
    }
  }
  return {};
}

std::map<std::string, std::string> owners_of(const GivenOptions& given, FormatOption::Use use) {
  std::map<std::string, std::string> out;
  for (const Format* f : FormatRegistry::builtin().formats()) {
    for (const FormatOption& o : options_of(*f)) {
      if (o.use == use && given.count(o.name)) out[o.name] = f->name();
    }
  }
  return out;
}

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
  // The rule for reading (docs/cli.md): what the data names is read from its own folder
  // only, unless a folder is named here.
  cmd.add_option("--allow-outside", o.allow_outside,
                 "Let what the data names (HDF5 external links, external storage and virtual "
                 "sources, ASDF sources, a family index's members) be read from this folder "
                 "too (default: the data's own folder only); repeatable; '/' allows anything")
      ->allow_extra_args(false)
      ->check(CLI::ExistingDirectory);
  add_s3_options(cmd, o.s3);
  // Options only one format has, grouped so that --help says which format they are for.
  add_format_options(cmd, FormatOption::Use::kReading, o.given);
}

void add_s3_options(CLI::App& cmd, io::S3Options& s3) {
  const std::string group = "S3 (s3://BUCKET/KEY)";
  cmd.add_option_function<std::string>(
         "--endpoint-url", [&s3](const std::string& v) { s3.endpoint_url = v; },
         "S3-compatible service at this URL (default: AWS_ENDPOINT_URL, the profile's, else "
         "AWS in the region)")
      ->group(group);
  cmd.add_flag("--no-sign-request", s3.anonymous,
               "Send S3 requests unsigned (public buckets; AWS_NO_SIGN_REQUEST=true)")
      ->group(group);
  cmd.add_option_function<std::string>(
         "--profile", [&s3](const std::string& v) { s3.profile = v; },
         "Credentials and region of this profile in ~/.aws/credentials and ~/.aws/config "
         "(default: AWS_PROFILE, else default)")
      ->group(group);
  cmd.add_option_function<std::string>(
         "--region", [&s3](const std::string& v) { s3.region = v; },
         "S3 region (default: AWS_REGION, the profile's, else us-east-1)")
      ->group(group);
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
  if (auto members = layout::family_index_members(o.family, o.allow_outside)) {
    for (const layout::DudleyFamilyMember& member : *members) {
      DataOptions m = o;
      m.data = member.path;
      // What the index says reading its members needs, unless the command line said it
      // (its parameters first: the command line's, later, win).
      std::vector<std::string> params;
      for (const auto& [name, value] : member.options.bind.params)
        params.push_back(fmt::format("{}={}", name, value));
      auto& given_params = m.given["--param"];
      given_params.insert(given_params.begin(), params.begin(), params.end());
      if (given_params.empty()) m.given.erase("--param");
      if (m.given["--layout"].empty()) m.given["--layout"] = {member.options.layout};
      if (member.options.bind.params_absent) m.given["--params-absent"] = {"true"};
      out.push_back(std::move(m));
    }
    return out;
  }
  io::StoreOptions stores;
  stores.s3 = o.s3;
  std::vector<std::string> files = io::glob_files(o.family, stores);
  out.reserve(files.size());
  for (std::string& file : files) {
    out.push_back(o);
    out.back().data = std::move(file);
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
  try {
    OpenOptions options;
    options.format = o.format;
    options.wanted = o.wanted;
    options.extent_offsets = o.extent_offsets;
    options.allow_outside = o.allow_outside;
    options.store.s3 = o.s3;
    // An option only one format has (a layout given: Dudley data) names the format.
    if (options.format.empty()) options.format = format_selected_by(o.given);
    apply_format_options(o.given, options);
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
