#include "cli/interrupt.hpp"

#include <csignal>
#include <cstring>

namespace dudley::cli {
namespace {

volatile std::sig_atomic_t arrived = 0;

void on_signal(int signal) {
  if (arrived != 0) {  // a second one: at once, as the user asks
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  arrived = signal;
}

}  // namespace

Interrupted::Interrupted(int s)
    : std::runtime_error(s == SIGTERM ? "terminated" : "interrupted"), signal(s) {}

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // system calls go on; the next step checks
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void check_interrupted() {
  if (arrived != 0) throw Interrupted(arrived);
}

}  // namespace dudley::cli
