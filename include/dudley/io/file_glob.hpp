// Files named by a shell pattern, for reading every member of a file family.
#pragma once

#include <string>
#include <vector>

namespace dudley::io {

/// The files matching `pattern` ("out/run_*.bin"), sorted by name. Throws Error(kUsage)
/// naming the pattern when nothing matches.
std::vector<std::string> glob_files(const std::string& pattern);

}  // namespace dudley::io
