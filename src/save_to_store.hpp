// Saving to an object store (s3://BUCKET/NAME), in an order that keeps readers from
// half-written data:
// - a store (Zarr) is written straight into the bucket as it is encoded
//   (Format::save_into_store; src/formats/zarr/store_output.hpp says in what order);
// - a file (.npy, ASDF, HDF5, ...) is written by its format into a temporary local directory
//   as to any disk, then uploaded as one object, which S3 shows whole or not at all (a large
//   one goes up in parts, joined by the upload's last request); files beside it (a Dudley
//   layout) follow it. A failed upload removes what it had uploaded.
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
