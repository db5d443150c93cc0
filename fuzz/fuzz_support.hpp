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
  // A list made on demand may claim 2^60 items: a harness visits a bounded number.
  model::for_each_child(node, [](uint64_t i, const model::Node& c) {
    read_all(c);
    return i < 256;
  });
}

}  // namespace dudley::fuzz
