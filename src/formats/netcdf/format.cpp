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
    return open_netcdf(path, options.formats.get<NetcdfOpenOptions>(), options);
  }
};

}  // namespace

void register_netcdf_format(FormatRegistry& registry) {
  registry.add(std::make_unique<NetcdfFormat>());
}

}  // namespace dudley::netcdf
