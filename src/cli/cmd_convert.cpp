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
#include "cli/failure.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/dtype.hpp"
#include "dudley/core/error.hpp"
#include "dudley/format.hpp"
#include "dudley/formats/dudley/format.hpp"
#include "dudley/formats/dudley/syntax/parser.hpp"
#include "dudley/formats/dudley/write/from_model.hpp"
#include "dudley/open.hpp"
#ifdef DUDLEY_WITH_ASDF
#include "dudley/formats/asdf/writer.hpp"
#endif

namespace dudley::cli {

namespace {

namespace fs = std::filesystem;

struct ConvertOptions {
  DataOptions source;
  std::string destination;
  std::string write_order;
  bool fsync = false;
  bool quiet = false;
  bool embed_layout = false;
  std::string to_layout;
  std::string to;                  ///< --to: the format of DST (default: by its extension)
  std::string compression;         ///< ASDF: --compression
  uint64_t inline_max = 0;         ///< ASDF: --inline-max
  bool without_checksums = false;  ///< ASDF: --without-checksums
};

// Whether DST is written as Dudley data (which has a layout beside it, or embedded).
bool writes_dudley(const ConvertOptions& o) {
  return !o.to_layout.empty() ||
         FormatRegistry::builtin().for_writing(o.destination, o.to).name() == "dudley";
}

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

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  std::error_code ec;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// The files of a family whose shared layout is `layout` (STEM.dud: STEM_NNNN.* members, the
// index STEM.index.bin), at most a few, to name them.
std::vector<std::string> family_users(const std::string& layout) {
  const fs::path p(layout);
  const std::string stem = p.stem().string();
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry :
       fs::directory_iterator(p.parent_path().empty() ? "." : p.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    const bool member = name.size() > stem.size() + 1 && name.compare(0, stem.size(), stem) == 0 &&
                        name[stem.size()] == '_' &&
                        std::isdigit(static_cast<unsigned char>(name[stem.size() + 1]));
    if (member || name == stem + ".index.bin") out.push_back(entry.path().string());
    if (out.size() == 3) break;
  }
  return out;
}

// Outputs must never replace an input, nor a layout other files are read with: convert
// refuses before writing anything.
void check_outputs(const ConvertOptions& o) {
  std::vector<std::string> inputs{o.source.data};
  if (!o.source.layout.empty()) {
    inputs.push_back(o.source.layout);
  } else {
    inputs.push_back(layout::layout_path_for(o.source.data));
    const std::string stem = fs::path(o.source.data).stem().string();
    const size_t cut = stem.find_last_not_of("0123456789");
    if (cut != std::string::npos && cut + 1 < stem.size() && stem[cut] == '_') {
      inputs.push_back(
          (fs::path(o.source.data).parent_path() / (stem.substr(0, cut) + ".dud")).string());
    }
  }
  if (!o.to_layout.empty()) inputs.push_back(o.to_layout);
  std::vector<std::pair<std::string, std::string>> outputs{{o.destination, "the output"}};
  const bool dudley_out = writes_dudley(o);
  if (!o.embed_layout && dudley_out) {
    outputs.emplace_back(layout::layout_path_for(o.destination), "the output's layout");
  }
  for (const auto& [out, what] : outputs) {
    for (const std::string& in : inputs) {
      if (same_file(out, in)) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} {} is an input of this conversion ({}): choose another name",
                                what, out, in),
                    Location::file(o.destination));
      }
    }
  }
  if (!o.embed_layout && dudley_out) {
    const std::string layout = layout::layout_path_for(o.destination);
    if (fs::exists(layout)) {
      const std::vector<std::string> users = family_users(layout);
      if (!users.empty()) {
        throw Error(ErrorCategory::kUsage,
                    fmt::format("{} is the shared layout of a file family ({}...): writing it "
                                "would change how they read; choose another name, or "
                                "--embed-layout",
                                layout, fmt::join(users, ", ")),
                    Location::file(o.destination));
      }
    }
  }
}

// Options of one output format given for another would be ignored without a word.
void check_format_options(const ConvertOptions& o) {
  const bool dudley_out = writes_dudley(o);
  std::vector<std::string> wrong;
  if (dudley_out) {
    if (!o.compression.empty()) wrong.push_back("--compression");
    if (o.inline_max > 0) wrong.push_back("--inline-max");
    if (o.without_checksums) wrong.push_back("--without-checksums");
  } else {
    if (!o.write_order.empty()) wrong.push_back("--write-order");
    if (o.embed_layout) wrong.push_back("--embed-layout");
  }
  if (!wrong.empty()) {
    throw Error(
        ErrorCategory::kUsage,
        fmt::format("{} {} not apply to {} output ({})", fmt::join(wrong, ", "),
                    wrong.size() == 1 ? "does" : "do",
                    dudley_out ? std::string("dudley")
                               : FormatRegistry::builtin().for_writing(o.destination, o.to).name(),
                    o.destination));
  }
}

int run_convert(const ConvertOptions& o) {
  if (!o.source.family.empty()) {
    throw Error(ErrorCategory::kUsage, "convert takes one file, not --family");
  }
  check_format_options(o);
  try {
    check_outputs(o);
  } catch (const Error& e) {
    // Refused to protect a file: the arguments were read and are wrong for this file
    // system, which scripts meet as exit 1, like any invalid input.
    (void)report_failure(e, o.source.json);
    return kExitInvalid;
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
    layout::DudleySaveOptions dudley_options;
    dudley_options.order = write.order;
    dudley_options.embed_layout = write.embed_layout;
    dudley_options.write_layout = write.write_layout;
    SaveOptions save_options;
    save_options.format = o.to;
    save_options.fsync = write.fsync;
    save_options.progress = write.progress;
    save_options.formats.set(dudley_options);
#ifdef DUDLEY_WITH_ASDF
    asdf::AsdfSaveOptions asdf_options;
    asdf_options.compression = o.compression;
    asdf_options.inline_threshold = o.inline_max;
    asdf_options.checksums = !o.without_checksums;
    save_options.formats.set(asdf_options);
#endif
    size = save(tree, o.destination, save_options);
  } else {
    const layout::Layout target = layout::load_layout(o.to_layout);
    size = layout::write_tree_into(tree, target, o.destination, write, &unused);
  }
  if (!writes_dudley(o)) {
    const std::string written_format = FormatRegistry::builtin()
                                           .for_writing(o.destination, o.to)
                                           .name();  // one self-contained file
    if (o.source.json) {
      nlohmann::ordered_json out = {
          {"data", o.destination}, {"format", written_format}, {"bytes", size}};
      fmt::print("{}\n", json_text(out, 2));
    } else if (!o.quiet) {
      fmt::print("wrote {} ({} bytes, {})\n", o.destination, size, written_format);
    }
    return kExitOk;
  }
  const std::string layout_file =
      o.embed_layout ? o.destination : layout::layout_path_for(o.destination);
  if (o.source.json) {
    nlohmann::ordered_json out = {{"data", o.destination},
                                  {"layout", layout_file},
                                  {"embedded", o.embed_layout},
                                  {"bytes", size}};
    if (!o.to_layout.empty()) out["unused"] = unused;
    fmt::print("{}\n", json_text(out, 2));
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
      "Write SRC (any file dudley reads) as DST in the format --to names, or its extension "
      "names (Dudley data with its layout beside it, NAME.EXT -> NAME.dud, for any other). "
      "Arrays are copied block by block; DST appears only when complete.");
  add_data_options(*cmd, options->source, false);
  cmd->add_option("destination", options->destination, "File to write")->required();
  cmd->add_option("--to", options->to,
                  "Format of DST (default: from its extension, else dudley): " +
                      fmt::format("{}", fmt::join(format_names(true), ", ")))
      ->check(CLI::IsMember(format_names(true)));
  cmd->add_flag("--fsync", options->fsync, "Make the files durable before they appear");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress bar and no summary");
  CLI::Option_group* dudley = cmd->add_option_group("Dudley output", "Writing Dudley data");
  dudley
      ->add_option("--write-order", options->write_order,
                   "Byte order of the written file (default: this machine's)")
      ->check(CLI::IsMember({"little", "big"}));
  dudley
      ->add_option("--to-layout", options->to_layout,
                   "Write DST with this layout (a family's template, an agreed layout) "
                   "instead of one made from SRC: each data item takes SRC's array at the "
                   "same path")
      ->check(CLI::ExistingFile);
  dudley->add_flag("--embed-layout", options->embed_layout,
                   "Append the layout to DST with a trailer (one self-describing file, no "
                   ".dud; see docs/embedded-layout.md)");
  CLI::Option_group* asdf = cmd->add_option_group("ASDF output", "Writing ASDF files");
  asdf->add_option("--compression", options->compression, "Compress every block")
      ->check(CLI::IsMember({"zlib", "bzp2", "lz4"}));
  asdf->add_option(
      "--inline-max", options->inline_max,
      "Write arrays of at most this many elements inline in the tree (default 0: none)");
  asdf->add_flag("--without-checksums", options->without_checksums,
                 "Store no MD5 per block (faster; readers then cannot check the data)");
  cmd->callback([options, &exit_code] {
    exit_code = guarded(options->source.json, [&] { return run_convert(*options); });
  });
}

}  // namespace dudley::cli
