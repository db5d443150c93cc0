// The "hdf5" format's registration: signature sniffing, options, open and save (the last
// two through the backend, which calls libhdf5).
#include <cstring>

#include "backend.hpp"
#include "dudley/formats/hdf5.hpp"

namespace dudley::hdf5 {
namespace {

class Hdf5Format final : public BasicFormat {
 public:
  Hdf5Format()
      : BasicFormat("hdf5", "HDF5 files through the HDF5 library (groups, datasets, attributes)",
                    {".h5", ".hdf5", ".he5", ".nc4"}) {}

  // A .nc file written is netCDF-4: an HDF5 file with dimension scales (and text attributes
  // as netCDF's char), which netCDF-C, ncdump and xarray read. (Reading, a .nc file is
  // recognised by its signature: netCDF classic or HDF5.)
  std::vector<std::string> writing_extensions() const override {
    return {".h5", ".hdf5", ".he5", ".nc4", ".nc"};
  }

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    // The signature is at 0, or after a user block of 512, 1024, 2048 bytes...
    for (size_t at = 0; at + 8 <= head.size(); at = at == 0 ? 512 : at * 2) {
      if (std::memcmp(head.data() + at, kSignature, 8) == 0) return true;
    }
    return false;
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    return backend().open(path, options);  // its own options are in options.formats
  }

  std::vector<FormatOption> cli_options() const override {
    using Kind = FormatOption::Kind;
    return {
        FormatOption::writing(Kind::kUnsigned, "--deflate",
                              "Compress HDF5 datasets with deflate at this level (1-9), chunked"),
        FormatOption::writing(Kind::kFlag, "--hdf5-shuffle",
                              "Byte-shuffle HDF5 datasets before deflate"),
    };
  }

  void apply_save_options(const GivenOptions& given, SaveOptions& options) const override {
    Hdf5SaveOptions own = options.formats.get<Hdf5SaveOptions>();
    own.deflate = static_cast<unsigned>(given_unsigned(given, "--deflate", own.deflate));
    if (own.deflate > 9) throw Error(ErrorCategory::kUsage, "--deflate takes a level of 1 to 9");
    own.shuffle = given_flag(given, "--hdf5-shuffle") || own.shuffle;
    if (own.shuffle && own.deflate == 0)
      throw Error(ErrorCategory::kUsage, "--hdf5-shuffle goes with --deflate LEVEL");
    options.formats.set(std::move(own));
  }

  bool can_save() const override { return true; }
  SaveReport save(const model::Tree& tree, const std::string& path,
                  const SaveOptions& options) const override {
    return write_hdf5(tree, path, options.formats.get<Hdf5SaveOptions>(), options);
  }
};

}  // namespace

model::Tree open_hdf5(const std::string& path, const Hdf5OpenOptions& options,
                      const OpenOptions& common) {
  OpenOptions all = common;
  all.formats.set(options);
  return backend().open(path, all);
}

SaveReport write_hdf5(const model::Tree& tree, const std::string& destination,
                      const Hdf5SaveOptions& options, const SaveOptions& common) {
  SaveOptions all = common;
  all.formats.set(options);
  SaveReport report;
  const uint64_t bytes = backend().write(tree, destination, all, report);
  report.files.push_back({destination, "data", bytes});
  return report;
}

void register_hdf5_format(FormatRegistry& registry) {
  registry.add(std::make_unique<Hdf5Format>());
}

}  // namespace dudley::hdf5
