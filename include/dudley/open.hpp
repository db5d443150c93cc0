// One entry point for reading any supported file as a model tree, and one for writing a
// tree, both through the format registry (dudley/format.hpp).
#pragma once

#include <string>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley {

/// Opens `path` as a model tree: groups, lists and arrays (dtype, shape, address), data read
/// on demand through Node::data. The format is `options.format`, or found from the file
/// (FormatRegistry::for_reading: signature, then extension, then Dudley). Each format's
/// own options come from `options.formats` (layout::DudleyOpenOptions for Dudley data).
/// Throws Error(kIo / kUsage / kSyntax / kSemantic) naming the file at fault.
model::Tree open(const std::string& path, const OpenOptions& options = {});

/// Writes `tree` (from any format open() reads) to `path` in `options.format`, or the
/// format its extension names (Dudley for a name without one), streaming each array block
/// by block so memory stays bounded, through temporary files renamed into place. A
/// destination s3://BUCKET/NAME is written to a temporary local directory first and then
/// uploaded (see save_to_store.hpp for the order that keeps readers from half-written
/// data); a web server's URL is refused (Error(kUsage)). Returns
/// the files written and notes on what the format could not keep. Throws Error(kUsage) for
/// an unknown format, one that cannot write or an extension no format owns, and the
/// writer's errors (kType for an element type the format cannot hold).
SaveReport save(const model::Tree& tree, const std::string& path, const SaveOptions& options = {});

}  // namespace dudley
