// Reading .npy: any bytes either read as a one-array tree (and the array is read whole) or
// fail with an Error; the header parser is depth- and size-limited.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/formats/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/dudley-fuzz-npy-" + std::to_string(::getpid()) + ".npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const dudley::model::Tree tree = dudley::npy::open_npy(path);
    (void)tree.root->data->read();
  } catch (const dudley::Error&) {
  }
  return 0;
}
