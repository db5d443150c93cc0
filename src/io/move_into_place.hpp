// The last step of every output: its temporary renamed to the name the user gave, and never
// over something that appeared there while it was written.
#pragma once

#include <string>

namespace dudley::io {

/// Renames `from` to `to`. With `replace`, whatever is at `to` is replaced (the output that
/// was there when the write began); without, something at `to` (another program's file or
/// folder that appeared meanwhile) is left as it is: Error(kIo) naming `to`, "appeared while
/// this was written" (RENAME_NOREPLACE; a plain rename where the file system has no such
/// flag). Other failures are Error(kIo) naming `to` with the system's reason.
void move_into_place(const std::string& from, const std::string& to, bool replace);

}  // namespace dudley::io
