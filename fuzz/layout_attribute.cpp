// libFuzzer target: the text of a layout attribute (`name: value` after `#@`). Any bytes
// read or are refused with an offset inside them, never a crash; what reads is written back
// by attribute_text (with its stored text type), and that text reads as the same value, bit
// for bit, and writes as the same text. check_attribute (what `dudley check` runs) agrees
// with parse_attribute on every input: same verdict, same name, same error.
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
  const bool read = dudley::layout::parse_attribute(text, first, error);
  std::string checked_name;
  dudley::layout::AttributeTextError check_error;
  if (dudley::layout::check_attribute(text, checked_name, check_error) != read) std::abort();
  if (!read) {
    if (error.offset > size || error.message.empty()) std::abort();
    if (check_error.offset != error.offset || check_error.message != error.message) std::abort();
    return 0;
  }
  if (checked_name != first.name) std::abort();
  const dudley::DType* stored = first.text_type ? &*first.text_type : nullptr;
  std::string printed;
  try {
    printed = dudley::layout::attribute_text(first.name, first.value, stored);
  } catch (const dudley::Error&) {
    return 0;  // what the text cannot hold (an empty array of two dimensions) is refused
  }
  dudley::layout::ParsedAttribute second;
  if (!dudley::layout::parse_attribute(printed, second, error)) std::abort();
  if (!(second == first)) std::abort();
  const dudley::DType* again = second.text_type ? &*second.text_type : nullptr;
  if (dudley::layout::attribute_text(second.name, second.value, again) != printed) std::abort();
  return 0;
}
