// The "netcdf3" format's registration: its signature, and open through its reader.
#include <cstring>

#include "dudley/formats/netcdf.hpp"

namespace dudley::netcdf {
namespace {

class NetcdfFormat final : public BasicFormat {
 public:
  NetcdfFormat()
      : BasicFormat("netcdf3", "netCDF classic (CDF-1, CDF-2, CDF-5), read through a Dudley layout",
                    {".nc", ".cdf"}) {}

  bool sniff(const std::string&, std::span<const std::byte> head) const override {
    return head.size() >= 4 && std::memcmp(head.data(), "CDF", 3) == 0 &&
           (head[3] == std::byte{1} || head[3] == std::byte{2} || head[3] == std::byte{5});
  }

  model::Tree open(const std::string& path, const OpenOptions& options) const override {
    // A .nc object at a URL was chosen by its name, its first bytes unread: netCDF-4 is an
    // HDF5 file, read by that format.
    if (io::is_url(path)) {
      const std::shared_ptr<io::ByteSource> source = io::open_source(path, options.store);
      unsigned char head[4] = {};
      if (source->size() >= 4) source->read(0, 4, head);
      const Format* hdf5 = FormatRegistry::builtin().find("hdf5");
      if (std::memcmp(head, "\x89HDF", 4) == 0 && hdf5) return hdf5->open(path, options);
    }
    return open_netcdf(path, options.formats.get<NetcdfOpenOptions>(), options);
  }
};

}  // namespace

void register_netcdf_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NetcdfFormat>());
}

}  // namespace dudley::netcdf
