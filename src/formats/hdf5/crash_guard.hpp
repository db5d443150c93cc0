// libhdf5 1.10 (Debian's) dereferences what a damaged file claims: a few flipped bytes in a
// variable-length attribute send H5Aread into H5HG_read at a wild address (SIGSEGV). What
// the library does with a file is first done in a child process, so that such a crash costs
// the one file, refused by name, not the process that asked (a viewer, a Dask worker, a
// long conversion).
#pragma once

#include <functional>
#include <string>

namespace dudley::hdf5 {

/// Runs `work` (calls into libhdf5 about the file `path`) in a child process forked for it
/// and waits for it. Returns when the child ended by itself, whatever `work` did (an error
/// it threw is the caller's to meet again, doing the same work itself). Throws Error(kData)
/// naming `path`, `what` was being done and the signal when the library crashed the child.
/// The library's lock is held throughout: no other thread is inside libhdf5 when the process
/// forks, so the child finds the library as one thread left it.
void in_crash_proof_child(const std::string& path, const std::string& what,
                          const std::function<void()>& work);

}  // namespace dudley::hdf5
