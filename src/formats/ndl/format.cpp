// The "ndl" format: NDL documents read as description trees (with the values they hold) and
// written with every value, so `dudley convert data.h5 data.yaml` keeps the data.
#include "dudley/formats/ndl/ndl.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "dudley/io/atomic_file.hpp"

namespace dudley::ndl {
namespace {

class NdlFormat final : public BasicFormat {
 public:
  NdlFormat()
      : BasicFormat("ndl", "Ndarray Data Language: a YAML description of groups and arrays",
                    {".ndl", ".yaml", ".yml"}) {}

  // NDL is YAML text without a signature: a name with its extension whose first bytes are
  // text is NDL, before any companion file is asked (an x.dud left beside x.ndl by an
  // earlier conversion does not make it Dudley data); otherwise --format ndl.
  bool sniff(const std::string& path, std::span<const std::byte> head) const override {
    const std::string ext = lowercase_extension(path);
    const auto names = extensions();
    if (head.empty() || std::find(names.begin(), names.end(), ext) == names.end()) return false;
    return std::none_of(head.begin(), head.end(), [](std::byte b) { return b == std::byte{0}; });
  }

  model::Tree open(const std::string& path, const OpenOptions&) const override {
    return open_ndl(path);
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    SaveReport report;
    io::AtomicFile file(path);
    uint64_t at = 0;
    DescribeOptions describe_options;
    describe_options.values = true;
    describe_options.skipped_as_warnings = false;  // the loss log counts them
    describe_options.leave_bookkeeping = true;
    DescribeProblems problems;
    describe(
        tree, describe_options,
        [&](std::string_view text) {
          file.write_at(at, text.data(), text.size());
          at += text.size();
        },
        problems);
    // What NDL cannot state and what could not be read alike: not in the output.
    LossLog losses(tree, options.lossy, "NDL", path);
    for (std::string& e : problems.errors) losses.lose(std::move(e));
    for (std::string& w : problems.warnings) losses.lose(std::move(w));
    losses.check();  // the temporary file is discarded
    file.commit(options.fsync);
    report.lost = losses.take();
    report.notes = std::move(problems.notes);
    report.files.push_back({path, "data", at});
    return report;
  }
};

}  // namespace

void register_ndl_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NdlFormat>());
}

}  // namespace dudley::ndl
