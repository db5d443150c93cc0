// The Dudley format's registration: sniffing, its command-line options, the files it reads
// and writes besides the one named, and open/save through the module's reader and writer.
#include "dudley/formats/dudley.hpp"

#include <cctype>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dudley/io/byte_source.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/embedded.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/layout/write/from_model.hpp"
#include "dudley/layout/write/writer.hpp"

namespace dudley::layout {
namespace {

namespace fs = std::filesystem;

using Kind = FormatOption::Kind;

// NAME=INTEGER or /group/NAME=INTEGER, as --param gives a parameter's value.
void add_param(const std::string& text, BindOptions& bind) {
  const size_t eq = text.find('=');
  int64_t value = 0;
  const char* begin = text.data() + (eq == std::string::npos ? 0 : eq + 1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != end) {
    throw Error(ErrorCategory::kUsage, "--param " + text + ": expected NAME=INTEGER");
  }
  bind.params[text.substr(0, eq)] = value;
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

class DudleyFormat final : public BasicFormat {
 public:
  DudleyFormat()
      : BasicFormat("dudley",
                    "Dudley: binary data described by a layout (NAME.dud beside it, or embedded)",
                    {".bin", ".dat", ".raw"}) {}

  // Dudley data has no signature of its own; it is recognised by its layout: beside it as
  // NAME.dud, or embedded after the data (the trailer's magic at the end).
  Recognition recognition() const override { return Recognition::kCompanion; }
  bool sniff(const std::string& path, std::span<const std::byte>) const override {
    std::error_code ec;
    if (fs::is_regular_file(layout_path_for(path), ec)) return true;
    if (!fs::is_regular_file(path, ec)) return false;  // never block on a FIFO
    try {
      return read_embedded_layout(*io::open_file(path)).has_value();
    } catch (const Error&) {
      return false;
    }
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_dudley(path, options.formats.get<DudleyOpenOptions>(), options);
  }

  std::vector<FormatOption> cli_options() const override {
    return {
        FormatOption::reading(
            Kind::kValue, "--layout",
            "Layout file (default: NAME.dud beside data file NAME.*, or embedded)")
            .selecting_format(),
        FormatOption::reading(Kind::kValue, "--order",
                              "Byte order of '|' types when the layout has no !DUDLEY signature")
            .allowing({"little", "big"}),
        FormatOption::reading(
            Kind::kList, "--param",
            "Give a parameter's value: NAME=VALUE or /group/NAME=VALUE (repeat the option for "
            "each)"),
        FormatOption::reading(
            Kind::kFlag, "--params-absent",
            "Dynamic parameters are not stored in the file (they take no bytes); give them all "
            "with --param"),
        FormatOption::writing(Kind::kValue, "--write-order",
                              "Byte order of the written file (default: this machine's)")
            .allowing({"little", "big"}),
        FormatOption::writing(
            Kind::kValue, "--to-layout",
            "Write DST with this layout (a family's template, an agreed layout) instead of one "
            "made from SRC: each data item takes SRC's array at the same path")
            .naming_a_file()
            .selecting_format(),
        FormatOption::writing(
            Kind::kFlag, "--embed-layout",
            "Append the layout to DST with a trailer (one self-describing file, no .dud; see "
            "docs/embedded-layout.md)"),
    };
  }

  void apply_open_options(const GivenOptions& given, OpenOptions& options) const override {
    DudleyOpenOptions own = options.formats.get<DudleyOpenOptions>();
    own.layout = given_value(given, "--layout", own.layout);
    const std::string order = given_value(given, "--order");
    if (order == "little") own.bind.default_order = ByteOrder::kLittle;
    if (order == "big") own.bind.default_order = ByteOrder::kBig;
    own.bind.params_absent = own.bind.params_absent || given_flag(given, "--params-absent");
    for (const std::string& p : given_values(given, "--param")) add_param(p, own.bind);
    options.formats.set(std::move(own));
  }

  void apply_save_options(const GivenOptions& given, SaveOptions& options) const override {
    DudleySaveOptions own = options.formats.get<DudleySaveOptions>();
    const std::string order = given_value(given, "--write-order");
    if (order == "little") own.order = ByteOrder::kLittle;
    if (order == "big") own.order = ByteOrder::kBig;
    own.to_layout = given_value(given, "--to-layout", own.to_layout);
    if (given_flag(given, "--embed-layout")) {
      own.embed_layout = true;
      own.write_layout = false;
    }
    options.formats.set(std::move(own));
  }

  // The layout the data is read with, and a family's shared layout (run_0003.bin is read
  // with run.dud when no run_0003.dud is there).
  std::vector<std::string> inputs_besides(const std::string& path,
                                          const OpenOptions& options) const override {
    const auto& own = options.formats.get<DudleyOpenOptions>();
    if (!own.layout.empty()) return {own.layout};
    std::vector<std::string> out{layout_path_for(path)};
    const std::string stem = fs::path(path).stem().string();
    const size_t cut = stem.find_last_not_of("0123456789");
    if (cut != std::string::npos && cut + 1 < stem.size() && stem[cut] == '_') {
      out.push_back((fs::path(path).parent_path() / (stem.substr(0, cut) + ".dud")).string());
    }
    return out;
  }

  std::vector<WrittenFile> outputs_besides(const std::string& path,
                                           const SaveOptions& options) const override {
    const auto& own = options.formats.get<DudleySaveOptions>();
    if (own.embed_layout || !own.write_layout) return {};
    return {{layout_path_for(path), "layout", 0}};
  }

  void check_destination(const std::string& path, const SaveOptions& options) const override {
    const auto& own = options.formats.get<DudleySaveOptions>();
    if (own.embed_layout || !own.write_layout) return;
    const std::string layout = layout_path_for(path);
    std::error_code ec;
    if (!fs::exists(layout, ec)) return;
    const std::vector<std::string> users = family_users(layout);
    if (users.empty()) return;
    throw Error(ErrorCategory::kUsage,
                fmt::format("{} is the shared layout of a file family ({}...): writing it would "
                            "change how they read; choose another name, or --embed-layout",
                            layout, fmt::join(users, ", ")),
                Location::file(path));
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_dudley(tree, path, options.formats.get<DudleySaveOptions>(), options);
  }
};

}  // namespace

model::Tree open_dudley(const std::string& path, const DudleyOpenOptions& options,
                        const OpenOptions& common) {
  return open_with_layout(path, options.layout, options.bind, common.wanted, common.store);
}

SaveReport write_dudley(const model::Tree& tree, const std::string& path,
                        const DudleySaveOptions& options, const SaveOptions& common) {
  WriteOptions write;
  write.order = options.order;
  write.fsync = common.fsync;
  write.write_layout = options.write_layout;
  write.embed_layout = options.embed_layout;
  write.progress = common.progress;
  if (options.embed_layout) {
    // A reader finds NAME.dud beside the data before the layout embedded in it: one left
    // there (by an earlier conversion, or the user's) would be read in its place.
    std::error_code ec;
    const std::string beside = layout_path_for(path);
    if (fs::exists(fs::symlink_status(beside, ec))) {
      throw Error(ErrorCategory::kUsage,
                  fmt::format("{} lies beside it, and readers would read the data through it "
                              "instead of the embedded layout: remove it, or choose another name",
                              beside),
                  Location::file(path));
    }
  }
  SaveReport report;
  uint64_t bytes = 0;
  if (options.to_layout.empty()) {
    bytes = write_tree(tree, path, write, &report, common.lossy);
  } else {
    const Layout target = load_layout(options.to_layout);
    // The layout chooses what is carried (a family's template takes some of the source's
    // arrays): the others are named, not refused.
    bytes = write_tree_into(tree, target, path, write, &report.unused);
    if (!report.unused.empty()) {
      report.notes.push_back(fmt::format("{} array(s) of the source have no item in {}: {}",
                                         report.unused.size(), options.to_layout,
                                         fmt::join(report.unused, ", ")));
    }
  }
  report.files.push_back(
      {path, options.embed_layout ? "data, its layout embedded at the end" : "data", bytes});
  if (options.embed_layout) report.layout = path;
  if (write.write_layout && !options.embed_layout) {
    report.layout = layout_path_for(path);
    std::error_code ec;
    const uint64_t size = fs::file_size(report.layout, ec);
    report.files.push_back({report.layout, "layout", ec ? 0 : size});
  }
  return report;
}

std::optional<std::vector<DudleyFamilyMember>> family_index_members(
    const std::string& path, const std::vector<std::string>& allow_outside) {
  if (!is_family_index(path)) return std::nullopt;
  const FamilyIndex index = read_family_index(path, allow_outside);
  std::vector<DudleyFamilyMember> out;
  for (size_t i = 0; i < index.files.size(); ++i) {
    DudleyFamilyMember m{index.files[i], {}};
    m.options.layout = index.layout_path;
    for (size_t k = 0; k < index.param_paths.size(); ++k)
      m.options.bind.params[index.param_paths[k]] = index.values[i][k];
    m.options.bind.params_absent = !index.params_in_files;
    out.push_back(std::move(m));
  }
  return out;
}

void register_dudley_format(FormatRegistry& registry) {
  registry.add(std::make_unique<DudleyFormat>());
  // Dudley data needs no extension: a name without one is read and written as Dudley data.
  registry.set_fallback("dudley");
}

}  // namespace dudley::layout
