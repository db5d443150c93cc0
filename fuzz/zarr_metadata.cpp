// zarr.json parsing: any bytes either parse or fail with an Error, never crash; what parses
// writes back to metadata that parses to the same codecs and fill value.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dudley/core/error.hpp"
#include "formats/zarr/metadata.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dudley::zarr;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  NodeMetadata node;
  try {
    node = parse_metadata(text, "fuzz/zarr.json");
  } catch (const dudley::Error&) {
    return 0;
  }
  if (!node.array) return 0;
  const std::string again = array_metadata_json(*node.array);
  const NodeMetadata back = parse_metadata(again, "again/zarr.json");  // must not throw
  if (!(back.array->fill == node.array->fill) ||
      back.array->codecs.to_json() != node.array->codecs.to_json()) {
    __builtin_trap();
  }
  return 0;
}
