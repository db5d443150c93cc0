// The ASDF format's registration: its signature, and open/save through the module's reader
// and writer.
#include "dudley/formats/asdf/format.hpp"

#include "dudley/formats/asdf/reader.hpp"
#include "dudley/formats/asdf/writer.hpp"

namespace dudley::asdf {
namespace {

class AsdfFormat final : public Format {
 public:
  std::string name() const override { return "asdf"; }
  std::string description() const override {
    return "ASDF: a YAML tree with binary blocks (core/ndarray 1.0.0 and 1.1.0)";
  }
  std::vector<std::string> extensions() const override { return {".asdf"}; }
  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return has_asdf_signature(head);
  }
  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_asdf(path, options.formats.get<AsdfOpenOptions>());
  }
  bool can_save() const override { return true; }
  uint64_t save(const model::Tree& tree, const std::string& path,
                const SaveOptions& options) const override {
    return write_asdf(tree, path, options.formats.get<AsdfSaveOptions>(), options);
  }
};

}  // namespace

void register_asdf_format(FormatRegistry& registry) {
  registry.add(std::make_unique<AsdfFormat>());
}

}  // namespace dudley::asdf
