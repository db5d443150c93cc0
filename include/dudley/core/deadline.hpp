// A deadline for what the calling thread reads. A caller that must answer in time (the
// viewer) sets one around its reads, and the parts of a read that can wait long (a web
// server's or object store's answers) end at it with DeadlinePassed instead of going on for
// minutes. Work handed to other threads carries it there: ThreadPool::parallel_for's
// helpers, run_on_own_threads' and the Zarr reader's fetch thread set the caller's.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "dudley/core/error.hpp"

namespace dudley {

using DeadlineClock = std::chrono::steady_clock;

/// A read stopped at its caller's deadline (category kLimit); the message is the one the
/// caller gave ThreadDeadline, saying what to do instead.
class DeadlinePassed : public Error {
 public:
  using Error::Error;
};

/// A thread's deadline and its message, as carried to another thread that does part of its
/// work (a fetch running beside the decoding): current_deadline() there, ThreadDeadline here.
struct DeadlineScope {
  std::optional<DeadlineClock::time_point> at;
  std::string message;
};

/// The calling thread's deadline (none: `at` empty).
DeadlineScope current_deadline();

/// The calling thread's deadline while the object lives: the earlier of `at` and any set
/// around it. `message` is what DeadlinePassed says when it is met.
class ThreadDeadline {
 public:
  ThreadDeadline(DeadlineClock::time_point at, std::string message);
  /// The deadline of another thread (current_deadline() there), if it had one.
  explicit ThreadDeadline(const DeadlineScope& carried);
  ~ThreadDeadline();
  ThreadDeadline(const ThreadDeadline&) = delete;
  ThreadDeadline& operator=(const ThreadDeadline&) = delete;

 private:
  std::optional<DeadlineClock::time_point> outer_at_;
  std::string outer_message_;
};

/// The calling thread's deadline, if one is set.
std::optional<DeadlineClock::time_point> thread_deadline();

/// Throws DeadlinePassed when the calling thread's deadline has passed.
void check_thread_deadline();

/// The DeadlinePassed the calling thread's deadline makes (its message), for a read that
/// stopped at it.
DeadlinePassed deadline_passed();

}  // namespace dudley
