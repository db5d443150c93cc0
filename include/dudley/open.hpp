// One entry point for reading any supported file as a model tree, and one for writing a tree.
#pragma once

#include <string>

#include "dudley/formats/dudley/bind/binder.hpp"
#include "dudley/formats/dudley/write/writer.hpp"
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

struct SaveOptions {
  /// The format written. Today "dudley": the data file with its layout beside it (or, with
  /// write.embed_layout, inside it).
  std::string format = "dudley";
  /// Byte order, fsync, progress, embedding (see layout::WriteOptions).
  layout::WriteOptions write;
};

/// Writes `tree` (from any format open() reads) as a file of `options.format`, streaming
/// each array block by block so memory stays bounded, through temporary files renamed into
/// place. Returns the data file's size. Throws Error(kUsage) for an unknown format, and the
/// writer's errors (kType for an element type the format cannot hold).
uint64_t save(const model::Tree& tree, const std::string& path, const SaveOptions& options = {});

}  // namespace dudley
