// libFuzzer target for binding and reading: input = 2-byte little-endian layout length,
// the layout text, then the data bytes. Whatever the layout and bytes say, listing the tree
// and reading every array must end in values or dudley::Error: no crash, no out-of-bounds
// read, no hang, no allocation the data cannot justify.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/layout/parser.hpp"
#include "dudley/layout/to_model.hpp"

namespace {

void read_all(const dudley::model::Node& node) {
  if (node.data) {
    try {
      dudley::NDArray a = node.data->read();
      (void)a;
    } catch (const dudley::Error&) {
    }
  }
  for (const auto& c : node.children) read_all(*c);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t layout_size = std::min<size_t>(size - 2, data[0] | (data[1] << 8));
  std::string_view text(reinterpret_cast<const char*>(data + 2), layout_size);
  auto parsed = dudley::layout::parse_layout(text);
  if (!parsed.ok()) return 0;
  auto layout = std::make_shared<const dudley::layout::Layout>(std::move(parsed.layout));
  const uint8_t* bytes = data + 2 + layout_size;
  const size_t byte_count = size - 2 - layout_size;
  for (auto order : {dudley::ByteOrder::kLittle, dudley::ByteOrder::kBig}) {
    try {
      dudley::layout::BindOptions options;
      options.default_order = order;
      auto tree = dudley::layout::dudley_tree(
          layout, dudley::io::memory_source(bytes, byte_count, "fuzz.bin"), options);
      read_all(*tree.root);
    } catch (const dudley::Error&) {
    }
  }
  return 0;
}
