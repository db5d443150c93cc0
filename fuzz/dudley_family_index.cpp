// libFuzzer target for the family index reader: input = 2-byte little-endian layout length,
// the index's layout text, then the index's data bytes, written as run.index.dud and
// run.index.bin in a private directory. Whatever they say, read_family_index gives an index
// whose rows match its files and parameters, or dudley::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/layout/family.hpp"

namespace {

const std::filesystem::path& directory() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("dudley-fuzz-index-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

void put(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t layout_size = std::min<size_t>(size - 2, data[0] | (data[1] << 8));
  put(directory() / "run.index.dud", data + 2, layout_size);
  put(directory() / "run.index.bin", data + 2 + layout_size, size - 2 - layout_size);
  try {
    const auto index = dudley::layout::read_family_index((directory() / "run.index.bin").string());
    if (index.values.size() != index.files.size()) std::abort();
    for (const auto& row : index.values) {
      if (row.size() != index.param_paths.size()) std::abort();
    }
  } catch (const dudley::Error&) {
  }
  return 0;
}
