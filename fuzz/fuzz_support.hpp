// Helpers shared by the fuzz targets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

#include "dudley/core/error.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::fuzz {

/// The input of the binding targets: a 2-byte little-endian layout length, the layout text,
/// then the data bytes (a length beyond the input takes all of it as text).
struct LayoutAndData {
  std::string_view text;
  const uint8_t* bytes = nullptr;
  size_t byte_count = 0;
};
/// Splits `data`; nullopt when it is too short to hold the length.
inline std::optional<LayoutAndData> split_input(const uint8_t* data, size_t size) {
  if (size < 2) return std::nullopt;
  const size_t layout_size = std::min<size_t>(size - 2, data[0] | (data[1] << 8));
  return LayoutAndData{std::string_view(reinterpret_cast<const char*>(data + 2), layout_size),
                       data + 2 + layout_size, size - 2 - layout_size};
}

/// Reads every array of a tree; a dudley::Error is a fine outcome, anything else a finding.
inline void read_all(const model::Node& node) {
  if (node.data) {
    try {
      NDArray a = node.data->read();
      (void)a;
    } catch (const Error&) {
    }
  }
  // A list made on demand may claim 2^60 items: a harness visits a bounded number.
  model::for_each_child(node, [](uint64_t i, const model::Node& c) {
    read_all(c);
    return i < 256;
  });
}

}  // namespace dudley::fuzz
