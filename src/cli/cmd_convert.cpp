// `dudley convert SRC DST`: any file the model reads -> a Dudley data file + its layout.
#include <chrono>
#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/layout/from_model.hpp"
#include "dudley/layout/parser.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {

namespace {

struct ConvertOptions {
  DataOptions source;
  std::string destination;
  std::string write_order;
  bool fsync = false;
  bool quiet = false;
  bool embed_layout = false;
  std::string to_layout;
};

// A one-line progress bar on a terminal, shown once a conversion has taken a second.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  ~ProgressBar() {
    if (shown_) std::fputs("\n", stderr);
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(uint64_t done, uint64_t total) {
    if (!enabled_ || total == 0) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_ = now;
    shown_ = true;
    const double share = static_cast<double>(done) / static_cast<double>(total);
    const int width = 30, filled = static_cast<int>(share * width);
    fmt::print(stderr, "\rconverting [{:<{}}] {:3.0f}%  {:.0f} of {:.0f} MB",
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

int run_convert(const ConvertOptions& o) {
  if (!o.source.family.empty()) {
    throw Error(ErrorCategory::kUsage, "convert takes one file, not --family");
  }
  model::Tree tree = open_data(o.source);
  layout::WriteOptions write;
  if (o.write_order == "little") write.order = ByteOrder::kLittle;
  if (o.write_order == "big") write.order = ByteOrder::kBig;
  write.fsync = o.fsync;
  write.embed_layout = o.embed_layout;
  write.write_layout = !o.embed_layout;
  ProgressBar bar(!o.quiet && !o.source.json);
  write.progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };
  uint64_t size = 0;
  std::vector<std::string> unused;
  if (o.to_layout.empty()) {
    SaveOptions save_options;
    save_options.write = write;
    size = save(tree, o.destination, save_options);
  } else {
    const layout::Layout target = layout::load_layout(o.to_layout);
    size = layout::write_tree_into(tree, target, o.destination, write, &unused);
  }
  const std::string layout_file =
      o.embed_layout ? o.destination : layout::layout_path_for(o.destination);
  if (o.source.json) {
    nlohmann::ordered_json out = {{"data", o.destination},
                                  {"layout", layout_file},
                                  {"embedded", o.embed_layout},
                                  {"bytes", size}};
    if (!o.to_layout.empty()) out["unused"] = unused;
    fmt::print("{}\n", out.dump(2));
  } else if (!o.quiet) {
    if (!unused.empty()) {
      fmt::print(stderr, "note: {} array(s) of {} have no item in {}: {}\n", unused.size(),
                 o.source.data, o.to_layout, fmt::join(unused, ", "));
    }
    if (o.embed_layout) {
      fmt::print("wrote {} ({} bytes, its layout embedded at the end)\n", o.destination, size);
    } else {
      fmt::print("wrote {} ({} bytes) and {}\n", o.destination, size, layout_file);
    }
  }
  return kExitOk;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Write SRC (any file dudley reads) as Dudley data file DST with its layout beside it "
      "(DST NAME.EXT -> NAME.dud). Arrays are copied block by block; DST appears only when "
      "complete.");
  add_data_options(*cmd, options->source);
  cmd->add_option("destination", options->destination, "Dudley data file to write")->required();
  cmd->add_option("--write-order", options->write_order,
                  "Byte order of the written file (default: this machine's)")
      ->check(CLI::IsMember({"little", "big"}));
  cmd->add_flag("--fsync", options->fsync, "Make the files durable before they appear");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress bar and no summary");
  cmd->add_option("--to-layout", options->to_layout,
                  "Write DST with this layout (a family's template, an agreed layout) instead "
                  "of one made from SRC: each data item takes SRC's array at the same path")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--embed-layout", options->embed_layout,
                "Append the layout to DST with a trailer (one self-describing file, no .dud; "
                "see docs/embedded-layout.md)");
  cmd->callback([options, &exit_code] { exit_code = run_convert(*options); });
}

}  // namespace dudley::cli
