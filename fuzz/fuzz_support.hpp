// Helpers shared by the fuzz targets.
#pragma once

#include "dudley/core/error.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::fuzz {

/// Reads every array of a tree; a dudley::Error is a fine outcome, anything else a finding.
inline void read_all(const model::Node& node) {
  if (node.data) {
    try {
      NDArray a = node.data->read();
      (void)a;
    } catch (const Error&) {
    }
  }
  for (const auto& c : node.children) read_all(*c);
}

}  // namespace dudley::fuzz
