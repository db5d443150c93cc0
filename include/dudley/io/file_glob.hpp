// Files named by a shell pattern, for reading every member of a file family.
#pragma once

#include <string>
#include <vector>

#include "dudley/io/store.hpp"

namespace dudley::io {

/// The files matching `pattern` ("out/run_*.bin"), sorted by name; in an object store the
/// objects (s3://b/out/run_*.bin: the keys under s3://b/out listed, wildcards in the last
/// part only), reached with `stores`. Throws Error(kUsage) naming the pattern when nothing
/// matches, and for a pattern on a web server (which lists nothing).
std::vector<std::string> glob_files(const std::string& pattern, const StoreOptions& stores = {});

}  // namespace dudley::io
