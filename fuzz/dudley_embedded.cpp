// libFuzzer target for data files that carry their layout (docs/embedded-layout.md): input =
// a whole file. Finding and checking the trailer, parsing the embedded text, binding it to the
// same bytes and reading every array must end in values or dudley::Error: no crash, no read
// outside the input, no allocation the input's length cannot justify.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/embedded.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "fuzz_support.hpp"

namespace {

// A trailer's CRC is out of a fuzzer's reach, so half the inputs are assembled into a valid
// embedded file first: first byte odd -> [2-byte length][layout text][data] becomes
// data + text + trailer; the trailer reader then always succeeds and parsing, binding and
// reading the embedded layout get the fuzzer's attention. Other inputs are taken as files.
void run(const unsigned char* data, size_t size) {
  using namespace dudley::layout;
  auto source = dudley::io::memory_source(data, size, "fuzz.bin");
  try {
    std::optional<std::string> text = read_embedded_layout(*source);
    if (!text) return;
    BindOptions options;
    options.default_order = dudley::ByteOrder::kLittle;
    auto layout = std::make_shared<const Layout>(layout_from_text(*text, "fuzz.bin#layout"));
    dudley::model::Tree tree = dudley_tree(layout, source, options);
    dudley::fuzz::read_all(*tree.root);
  } catch (const dudley::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 3 && (data[0] & 1)) {
    const size_t length = std::min<size_t>(size - 3, data[1] | (size_t{data[2]} << 8));
    const std::string_view text(reinterpret_cast<const char*>(data) + 3, length);
    std::string file(reinterpret_cast<const char*>(data) + 3 + length, size - 3 - length);
    const uint64_t offset = file.size();
    file += text;
    file += dudley::layout::embedded_trailer(offset, text);
    run(reinterpret_cast<const unsigned char*>(file.data()), file.size());
  } else {
    run(data, size);
  }
  return 0;
}
