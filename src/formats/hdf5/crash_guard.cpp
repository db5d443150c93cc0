#include "crash_guard.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "library.hpp"

namespace dudley::hdf5 {

void in_crash_proof_child(const std::string& path, const std::string& what,
                          const std::function<void()>& work) {
  Lock lock(library_mutex());
  const pid_t child = ::fork();
  if (child < 0) {
    // No child to try it in (the process limit): the work is done unguarded, as before.
    return;
  }
  if (child == 0) {
    // The child: only the work, then gone, without destructors, exit handlers or stdio
    // flushes (the parent's buffered output is the parent's to write).
    renew_library_mutex_in_child();
    try {
      work();
    } catch (...) {  // the parent meets the same error doing the same work, and reports it
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return;  // the child is not ours to wait for: nothing to conclude
  }
  // The child ends with status 0 by itself; anything else is the library's crash: a signal,
  // or the exit status a sanitizer gives a process it stopped (AddressSanitizer's 1).
  std::string how;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* name = sigabbrev_np(signal);
    how = name ? fmt::format("SIG{}", name) : fmt::format("signal {}", signal);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    how = fmt::format("exit status {}", WEXITSTATUS(status));
  } else {
    return;
  }
  throw Error(ErrorCategory::kData,
              fmt::format("libhdf5 {}.{}.{} crashed ({}) {}; the file is refused, the process "
                          "reading it is unharmed (the file is damaged, or needs a newer HDF5)",
                          H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, how, what),
              Location::file(path));
}

}  // namespace dudley::hdf5
