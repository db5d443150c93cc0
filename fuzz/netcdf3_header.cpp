// Reading netCDF classic files: any bytes either read as a tree (every variable's data then
// read whole, through the layout made from the header) or fail with an Error. Header counts
// are checked against the file, so memory and time follow the input's size.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/formats/netcdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/dudley-fuzz-netcdf-" + std::to_string(::getpid()) + ".nc";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const dudley::model::Tree tree = dudley::netcdf::open_netcdf(path);
    for (const auto& child : tree.root->children) {
      if (child->data && child->error.empty()) (void)child->data->read();
    }
  } catch (const dudley::Error&) {
  }
  return 0;
}
