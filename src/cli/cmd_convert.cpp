// `dudley convert SRC DST`: any file the model reads -> a Dudley data file + its layout.
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/dump_items.hpp"
#include "cli/failure.hpp"
#include "cli/interrupt.hpp"
#include "cli/output_file.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/text.hpp"
#include "dudley/format.hpp"
#include "dudley/model/keep_items.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {

namespace {

namespace fs = std::filesystem;

struct ConvertOptions {
  DataOptions source;
  std::string destination;
  bool fsync = false;
  bool quiet = false;
  bool lossy = false;                ///< --lossy: write what DST can carry, list the rest
  bool overwrite = false;            ///< --overwrite: replace what is not DST's format's
  std::string to;                    ///< --to: the format of DST (default: by its extension)
  std::vector<std::string> items;    ///< ITEM...: only these (groups with what is below)
  std::vector<std::string> exclude;  ///< --exclude ITEM: all but these
  /// The formats' own writing options given (--compression, --embed-layout, ...).
  GivenOptions given;
};

// The format DST is written in: --to, else the one a writing option belongs to (--to-layout
// writes Dudley data), else by DST's extension.
const Format& output_format(const ConvertOptions& o) {
  const auto& registry = FormatRegistry::builtin();
  // `given` holds writing options only: one that selects a format names the output's.
  const std::string selected = o.to.empty() ? format_selected_by(o.given) : std::string();
  return registry.for_writing(o.destination, selected.empty() ? o.to : selected);
}

// A one-line progress bar on a terminal, shown once a conversion has taken a second.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Ends the bar's line (once shown), so that what is printed next starts a line of its own.
  void finish() {
    if (shown_) std::fputs("\n", stderr);
    shown_ = false;
    enabled_ = false;
  }

  /// Shows `done` of `total` bytes of `what` ("converting", "uploading").
  void update(uint64_t done, uint64_t total, const char* what = "converting") {
    if (!enabled_ || total == 0) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_ = now;
    shown_ = true;
    const double share = static_cast<double>(done) / static_cast<double>(total);
    const int width = 30, filled = static_cast<int>(share * width);
    fmt::print(stderr, "\r{} [{:<{}}] {:3.0f}%  {:.0f} of {:.0f} MB", what,
               std::string(filled, '#'), width, 100 * share, static_cast<double>(done) / 1e6,
               static_cast<double>(total) / 1e6);
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
};

// Outputs must never replace an input (the source, the files its format reads besides it,
// files the output's options read), nor files other readers depend on: convert refuses
// before writing anything.
void check_outputs(const ConvertOptions& o, const OpenOptions& open_options,
                   const SaveOptions& save_options, const Format& out_format,
                   const model::Tree& tree) {
  // The source, what its format reads beside it, what the opened tree read besides (ASDF
  // external array sources).
  std::vector<std::string> inputs = input_files(o.source, &tree, &open_options);
  // Files the writing options name (a layout to write into) are inputs too.
  for (const FormatOption& fo : out_format.cli_options()) {
    if (fo.use == FormatOption::Use::kWriting && fo.existing_file) {
      for (const std::string& v : given_values(o.given, fo.name)) inputs.push_back(v);
    }
  }
  std::vector<std::pair<std::string, std::string>> outputs{{o.destination, "the output"}};
  for (const WrittenFile& f : out_format.outputs_besides(o.destination, save_options)) {
    outputs.emplace_back(f.path, "the output's " + f.role);
  }
  // A store is a directory: an output inside an input directory, or a directory output
  // holding an input (replacing it would delete the input), is refused as well.
  auto inside = [](const std::string& inner, const std::string& outer) {
    std::error_code ec;
    if (!fs::is_directory(outer, ec)) return false;
    const std::string a = fs::weakly_canonical(inner, ec).string();
    const std::string b = fs::weakly_canonical(outer, ec).string();
    return !ec && a.size() > b.size() && a.compare(0, b.size(), b) == 0 && a[b.size()] == '/';
  };
  for (const auto& [out, what] : outputs) {
    for (const std::string& in : inputs) {
      if (inside(out, in) || inside(in, out)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} {} {} an input of this conversion ({}): choose another name",
                                what, out, inside(out, in) ? "is inside" : "holds", in),
                    Location::file(o.destination));
      }
      if (same_file(out, in)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} {} is an input of this conversion ({}): choose another name",
                                what, out, in),
                    Location::file(o.destination));
      }
    }
  }
  out_format.check_destination(o.destination, save_options);
}

// Options of one output format given for another would be ignored without a word.
void check_format_options(const ConvertOptions& o, const Format& out_format) {
  std::vector<std::string> wrong;
  for (const auto& [option, format] : owners_of(o.given, FormatOption::Use::kWriting)) {
    if (format != out_format.name()) wrong.push_back(option);
  }
  if (!wrong.empty()) {
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} {} not apply to {} output ({})", fmt::join(wrong, ", "),
                            wrong.size() == 1 ? "does" : "do", out_format.name(), o.destination));
  }
}

// Item paths as given (`/a/"run.ini"` quoted as dump takes them), quotes removed. Whole
// items only: a selection or field belongs to dump.
std::vector<std::string> item_paths(const std::vector<std::string>& given, const char* what) {
  std::vector<std::string> paths;
  for (const std::string& text : given) {
    const ItemPath split = split_item_path(text);
    if (split.rest != text.size() || split.path.empty() || split.path[0] != '/') {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{} {}: convert takes whole items by path (/group/array); "
                              "selections and fields are dump's",
                              what, text));
    }
    paths.push_back(split.path);
  }
  return paths;
}

int run_convert(const ConvertOptions& o) {
  if (!o.source.family.empty()) {
    throw Error(ErrorCategory::kUsage, "convert takes one file, not --family");
  }
  const Format& out_format = output_format(o);
  check_format_options(o, out_format);
  ProgressBar bar(!o.quiet && !o.source.json);
  SaveOptions save_options;
  save_options.format = out_format.name();
  save_options.fsync = o.fsync;
  save_options.lossy = o.lossy;
  save_options.overwrite = o.overwrite;
  save_options.store.s3 = o.source.s3;  // --endpoint-url, --profile ... serve both ends
  save_options.progress = [&](uint64_t done, uint64_t total) {
    check_interrupted();  // Ctrl-C: stop here, the temporaries removed as the save unwinds
    bar.update(done, total);
  };
  save_options.upload_progress = [&](uint64_t done, uint64_t total) {
    check_interrupted();
    bar.update(done, total, "uploading ");
  };
  apply_format_options(o.given, save_options);
  OpenOptions open_options;
  open_options.format = o.source.format;
  if (open_options.format.empty()) open_options.format = format_selected_by(o.source.given);
  apply_format_options(o.source.given, open_options);
  // Opened first (nothing is written yet): the tree says which other files it reads.
  model::Tree tree = open_data(o.source);
  model::keep_items(tree, item_paths(o.items, "ITEM"), item_paths(o.exclude, "--exclude"),
                    o.source.data);
  try {
    // An output in an object store cannot be an input file of this machine.
    if (!io::is_url(o.destination)) check_outputs(o, open_options, save_options, out_format, tree);
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::kUsage || e.location().path != o.destination) throw;
    // Refused to protect a file: the arguments were read and are wrong for this file
    // system, which scripts meet as exit 1, like any invalid input.
    (void)report_failure(e, o.source.json);
    return kExitInvalid;
  }
  SaveReport report;
  try {
    report = save(tree, o.destination, save_options);
    bar.finish();
  } catch (const Interrupted& i) {
    (void)report_failure(Error(ErrorCategory::kIo, fmt::format("{}; nothing was written", i.what()),
                               Location::file(o.destination)),
                         o.source.json);
    return 128 + i.signal;
  }
  if (o.source.json) {
    nlohmann::ordered_json out = {
        {"data", o.destination}, {"format", out_format.name()}, {"bytes", report.bytes()}};
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const WrittenFile& f : report.files) {
      files.push_back({{"path", f.path}, {"role", f.role}, {"bytes", f.bytes}});
    }
    if (!report.layout.empty()) {
      out["layout"] = report.layout;
      out["embedded"] = report.layout == o.destination;
    }
    out["files"] = std::move(files);
    if (!report.unused.empty()) out["unused"] = report.unused;
    out["notes"] = report.notes;
    out["lost"] = report.lost;
    fmt::print("{}\n", json_text(out, 2));
    return kExitOk;
  }
  // What --lossy left out is said even with --quiet: a partial result is never silent.
  // One line a note: names in them are the file's text, printed with controls escaped.
  for (const std::string& item : report.lost)
    fmt::print(stderr, "note: left out: {}\n", escape_controls(item));
  if (o.quiet) return kExitOk;
  for (const std::string& note : report.notes)
    fmt::print(stderr, "note: {}\n", escape_controls(note));
  std::vector<std::string> besides;
  for (size_t i = 1; i < report.files.size(); ++i)
    besides.push_back(shown_path(report.files[i].path));
  const WrittenFile& main_file = report.files.front();
  if (main_file.role != "data") {
    fmt::print("wrote {} ({} bytes, {})\n", shown_path(main_file.path), main_file.bytes,
               main_file.role);
  } else if (besides.empty()) {
    fmt::print("wrote {} ({} bytes, {})\n", shown_path(main_file.path), main_file.bytes,
               out_format.name());
  } else {
    fmt::print("wrote {} ({} bytes) and {}\n", shown_path(main_file.path), main_file.bytes,
               fmt::join(besides, ", "));
  }
  return kExitOk;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Write SRC (any file dudley reads) as DST in the format --to names, or its extension "
      "names (Dudley data with its layout beside it, NAME.EXT -> NAME.dud, for any other). "
      "Arrays are copied block by block; DST appears only when complete.");
  add_data_options(*cmd, options->source, false);
  cmd->add_option("destination", options->destination,
                  "File or store to write: a path, or s3://BUCKET/NAME (staged in $TMPDIR, then "
                  "uploaded)")
      ->required();
  cmd->add_option("items", options->items,
                  "Items to carry (default: all): /group (with everything below it), /array; "
                  "the groups above them are kept as containers, without their attributes");
  cmd->add_option("--exclude", options->exclude,
                  "Leave out this item (with everything below it); repeatable")
      ->take_last()
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--to", options->to,
                  "Format of DST (default: from its extension, else dudley): " +
                      fmt::format("{}", fmt::join(format_names(true), ", ")))
      ->check(CLI::IsMember(format_names(true)));
  cmd->add_flag("--fsync", options->fsync, "Make the files durable before they appear");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress bar and no summary");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace DST although it is not an output of DST's format (without it, DST "
                "must not exist, be an empty folder, or be a file or store of that format); a "
                "store is then written among the folder's other files, which are kept");
  cmd->add_flag("--lossy", options->lossy,
                "Write what DST can carry and list what it leaves out (without it, a "
                "conversion that would lose anything fails, naming every item, and writes "
                "nothing)");
  add_format_options(*cmd, FormatOption::Use::kWriting, options->given);
  cmd->callback([options, &exit_code] {
    catch_interrupts();
    exit_code = guarded(options->source.json, [&] { return run_convert(*options); });
  });
}

}  // namespace dudley::cli
