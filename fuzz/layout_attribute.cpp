// libFuzzer target: the text of a layout attribute (`name: value` after `#@`). Any bytes
// read or are refused with an offset inside them, never a crash; what reads is written back
// by attribute_text, and that text reads as the same value and writes as the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/attribute_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  dudley::layout::ParsedAttribute first;
  dudley::layout::AttributeTextError error;
  if (!dudley::layout::parse_attribute(text, first, error)) {
    if (error.offset > size || error.message.empty()) std::abort();
    return 0;
  }
  std::string printed;
  try {
    printed = dudley::layout::attribute_text(first.name, first.value);
  } catch (const dudley::Error&) {
    return 0;  // what the text cannot hold (an empty array of two dimensions) is refused
  }
  dudley::layout::ParsedAttribute second;
  if (!dudley::layout::parse_attribute(printed, second, error)) std::abort();
  if (second.name != first.name) std::abort();
  if (dudley::layout::attribute_text(second.name, second.value) != printed) std::abort();
  return 0;
}
