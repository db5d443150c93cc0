#include "dudley/formats/zarr/format.hpp"

#include <filesystem>

#include "dudley/formats/zarr/reader.hpp"

namespace dudley::zarr {
namespace {

class ZarrFormat final : public BasicFormat {
 public:
  ZarrFormat()
      : BasicFormat("zarr", "Zarr v3: a directory store of zarr.json metadata and chunks",
                    {".zarr"}) {}

  // A directory holding zarr.json (a file is never a store).
  bool sniff(const std::string& path, std::span<const std::byte>) const override {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec) &&
           std::filesystem::is_regular_file(std::filesystem::path(path) / "zarr.json", ec);
  }

  model::Tree open(const std::string& path, const OpenOptions&) const override {
    return open_zarr(path);
  }
};

}  // namespace

void register_zarr_format(FormatRegistry& registry) {
  registry.add(std::make_unique<ZarrFormat>());
}

}  // namespace dudley::zarr
