// The mark a temporary file or directory of this program carries (an extended attribute,
// user.dudley.temporary), so that a later writer removing what a killed one left behind
// removes only this program's temporaries: a file of the user's that merely has a
// temporary's name (".out.h5.tmp-ABCDEF") is never taken for one. Where the file system
// keeps no such attributes, nothing is marked and nothing is removed (a killed writer's
// temporary then stays, hidden by its leading dot).
#pragma once

#include <string>

namespace dudley::io {

/// Marks the open file or directory `fd` as a temporary of this program (best effort).
void mark_temporary(int fd);

/// Removes the mark from the open `fd` as it becomes an output: what a save leaves carries
/// no attribute of this program's.
void unmark_temporary(int fd);

/// Whether the file or directory at `path` (not followed if it is a symbolic link) carries
/// the mark.
bool marked_temporary(const std::string& path);

}  // namespace dudley::io
