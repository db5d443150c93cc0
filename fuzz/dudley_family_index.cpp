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
#include "dudley/layout/family/family.hpp"
#include "fuzz_support.hpp"

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
  const auto input = dudley::fuzz::split_input(data, size);
  if (!input) return 0;
  put(directory() / "run.index.dud", reinterpret_cast<const uint8_t*>(input->text.data()),
      input->text.size());
  put(directory() / "run.index.bin", input->bytes, input->byte_count);
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
