// The Dudley format's registration: sniffing, and open/save through the module's reader
// and writer.
#include "dudley/formats/dudley/format.hpp"

#include <filesystem>

#include "dudley/formats/dudley/bind/to_model.hpp"
#include "dudley/formats/dudley/embedded.hpp"
#include "dudley/formats/dudley/write/from_model.hpp"
#include "dudley/formats/dudley/write/writer.hpp"
#include "dudley/io/byte_source.hpp"

namespace dudley::layout {
namespace {

class DudleyFormat final : public Format {
 public:
  std::string name() const override { return "dudley"; }
  std::string description() const override {
    return "Dudley: binary data described by a layout (NAME.dud beside it, or embedded)";
  }
  std::vector<std::string> extensions() const override { return {".bin", ".dat", ".raw"}; }

  // Dudley data has no signature of its own; it is recognised by its layout: beside it as
  // NAME.dud, or embedded after the data (the trailer's magic at the end).
  bool sniff(const std::string& path, std::span<const std::byte>) const override {
    std::error_code ec;
    if (std::filesystem::is_regular_file(layout_path_for(path), ec)) return true;
    if (!std::filesystem::is_regular_file(path, ec)) return false;  // never block on a FIFO
    try {
      return read_embedded_layout(*io::open_file(path)).has_value();
    } catch (const Error&) {
      return false;
    }
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    const auto& own = options.formats.get<DudleyOpenOptions>();
    return open_dudley(path, own.layout, own.bind);
  }

  bool can_save() const override { return true; }
  uint64_t save(const model::Tree& tree, const std::string& path,
                const SaveOptions& options) const override {
    const auto& own = options.formats.get<DudleySaveOptions>();
    WriteOptions write;
    write.order = own.order;
    write.fsync = options.fsync;
    write.write_layout = own.write_layout;
    write.embed_layout = own.embed_layout;
    write.progress = options.progress;
    return write_tree(tree, path, write);
  }
};

}  // namespace

void register_dudley_format(FormatRegistry& registry) {
  registry.add(std::make_unique<DudleyFormat>());
}

}  // namespace dudley::layout
