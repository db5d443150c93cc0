// Ctrl-C (SIGINT) and SIGTERM during a command that writes: the command stops at its next
// step, its temporary outputs removed as it unwinds, and exits 128 + the signal's number,
// instead of dying with its temporaries left behind. A second signal ends it at once.
#pragma once

#include <stdexcept>

namespace dudley::cli {

/// Thrown by check_interrupted() once SIGINT or SIGTERM has arrived.
struct Interrupted : std::runtime_error {
  explicit Interrupted(int signal);
  int signal;
};

/// Installs the handlers (for the rest of the process).
void catch_interrupts();

/// Throws Interrupted when a signal has arrived since catch_interrupts().
void check_interrupted();

}  // namespace dudley::cli
