// The "npy" format's registration: its signature, open and save through its reader and
// writer.
#include <cstring>

#include "dudley/formats/npy.hpp"

namespace dudley::npy {
namespace {

class NpyFormat final : public BasicFormat {
 public:
  NpyFormat() : BasicFormat("npy", "numpy .npy: one array after a small header", {".npy"}) {}

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return head.size() >= 6 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0;
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return open_npy(path, options.formats.get<NpyOpenOptions>(), options);
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_npy(tree, path, options.formats.get<NpySaveOptions>(), options);
  }
};

}  // namespace

void register_npy_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NpyFormat>());
}

}  // namespace dudley::npy
