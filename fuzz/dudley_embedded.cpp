// libFuzzer target for data files that carry their layout (docs/embedded-layout.md): input =
// a whole file. Finding and checking the trailer, parsing the embedded text, binding it to the
// same bytes and reading every array must end in values or dudley::Error: no crash, no read
// outside the input, no allocation the input's length cannot justify.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/layout/embedded.hpp"
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
  using namespace dudley::layout;
  auto source = dudley::io::memory_source(data, size, "fuzz.bin");
  try {
    std::optional<std::string> text = read_embedded_layout(*source);
    if (!text) return 0;
    BindOptions options;
    options.default_order = dudley::ByteOrder::kLittle;
    auto layout = std::make_shared<const Layout>(layout_from_text(*text, "fuzz.bin#layout"));
    dudley::model::Tree tree = dudley_tree(layout, source, options);
    read_all(*tree.root);
  } catch (const dudley::Error&) {
  }
  return 0;
}
