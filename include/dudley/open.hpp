// One entry point for reading any supported file as a model tree.
#pragma once

#include <string>

#include "dudley/layout/binder.hpp"
#include "dudley/model/tree.hpp"

namespace dudley {

struct OpenOptions {
  /// The Dudley layout of the data; empty: NAME.dud beside data file NAME.EXT.
  std::string layout;
  /// Byte order default and parameter values for Dudley data (see BindOptions).
  layout::BindOptions bind;
};

/// Opens `path` as a model tree: groups, lists and arrays (dtype, shape, address), data read
/// on demand through Node::data. Finds the format from the file: today a Dudley data file
/// with its layout (`options.layout`, or NAME.dud beside it). Throws Error(kIo / kUsage /
/// kSyntax / kSemantic) naming the file at fault.
model::Tree open(const std::string& path, const OpenOptions& options = {});

}  // namespace dudley
