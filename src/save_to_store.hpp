// Saving to an object store (s3://BUCKET/NAME): the format writes into a temporary local
// directory as it writes to any disk, and what it wrote is then uploaded, in an order that
// keeps readers from half-written data:
// - a file (.npy, ASDF, HDF5, ...) is one object, which S3 shows whole or not at all (a large
//   one goes up in parts, joined by the upload's last request); files beside it (a Dudley
//   layout) follow it;
// - a store (Zarr) is many objects: its chunks go first, then its metadata, each array's
//   before the groups holding it and the consolidated metadata last, so a reader finds no
//   array until all its chunks are there. Overwriting a store removes the old store's
//   metadata first and its chunks the new one does not have after, so a reader never
//   mixes old and new: while the new store is written, none is there.
// A failed upload removes what it had uploaded.
#pragma once

#include <string>

#include "dudley/format.hpp"
#include "dudley/model/tree.hpp"

namespace dudley {

/// Saves `tree` with `format` to `url` (s3://BUCKET/NAME) as described above. Error(kUsage)
/// for a URL without a NAME, Error(kIo) naming the key that could not be written (and the
/// format's own errors).
SaveReport save_to_store(const Format& format, const model::Tree& tree, const std::string& url,
                         const SaveOptions& options);

}  // namespace dudley
