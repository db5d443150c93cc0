// What a save may replace. A save writes only where nothing is, or over an output of its own
// format, unless the caller asks to overwrite (SaveOptions::overwrite): a conversion named
// at a folder of the user's, a layout the user wrote, or a file of another format refuses
// before anything is written, naming what is there. Stores (Zarr) check their destination
// themselves, key by key (src/formats/zarr/existing_store.hpp): only their own keys are
// ever removed.
#pragma once

#include <string>

#include "dudley/format.hpp"
#include "dudley/io/store.hpp"

namespace dudley {

/// Refuses (Error(kUsage) naming the path) a save of a file `format` to the local `path`
/// that would replace anything but an output of that format: `path` existing as a file the
/// format does not recognise, or a file written beside it (a Dudley layout) existing
/// without its data file. Nothing with `options.overwrite`, nor for formats that write
/// stores.
void check_replaceable(const Format& format, const std::string& path, const SaveOptions& options);

/// The same for a file `format` saves as `name` (and its files beside) in the object store
/// `store`, which `url` names: an object already there is read (its first 4 KiB) and must
/// be recognised by the format.
void check_replaceable_in_store(const Format& format, const io::Store& store,
                                const std::string& name, const std::string& url,
                                const SaveOptions& options);

}  // namespace dudley
