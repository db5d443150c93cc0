// The "ndl" format: NDL documents read as description trees (with the values they hold) and
// written with every value, so `dudley convert data.h5 data.yaml` keeps the data.
#include "dudley/formats/ndl.hpp"

#include <algorithm>

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

  // NDL has no signature: any text file named .yaml passes sniff(). A file a save may
  // replace is one that reads as NDL (a docker-compose.yaml does not).
  bool is_own_file(const std::string& path, std::span<const std::byte> head) const override {
    if (!sniff(path, head)) return false;
    try {
      (void)open_ndl(path, NdlOpenOptions{}, OpenOptions{});
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_ndl(path, options.formats.get<NdlOpenOptions>(), options);
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_ndl(tree, path, options.formats.get<NdlSaveOptions>(), options);
  }
};

}  // namespace

void register_ndl_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NdlFormat>());
}

}  // namespace dudley::ndl
