// libFuzzer target: any bytes must parse or fail with diagnostics, never crash, and whatever
// parses must survive emit -> parse unchanged (the emitter's round-trip property), also in
// fmt's form that puts the ordinary comments back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  dudley::layout::ParseOptions options;
  options.force_template_check = size > 0 && data[0] == '!';
  options.keep_comments = true;
  options.check_attributes = true;  // `#@` attributes read as values (layout_attribute too)
  auto result = dudley::layout::parse_layout(text, options);
  for (const auto& d : result.diagnostics) {
    if (d.line == 0 || d.offset > size || d.message.empty()) std::abort();
  }
  if (result.ok()) {
    std::string canonical = dudley::layout::emit_layout(result.layout);
    auto again = dudley::layout::parse_layout(canonical);
    if (!again.ok() || !(again.layout == result.layout)) std::abort();
    if (dudley::layout::emit_layout(again.layout) != canonical) std::abort();
    std::string formatted = dudley::layout::emit_layout(result.layout, result.source);
    auto kept = dudley::layout::parse_layout(formatted, options);
    if (!kept.ok() || !(kept.layout == result.layout)) std::abort();
    if (kept.source.comments.size() != result.source.comments.size()) std::abort();
    if (dudley::layout::emit_layout(kept.layout, kept.source) != formatted) std::abort();
  }
  return 0;
}
