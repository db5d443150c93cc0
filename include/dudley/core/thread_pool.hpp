// A small pool of threads for independent work at once: chunks a codec chain codes, sources
// a model check verifies. In core, as every layer above uses it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "dudley/core/deadline.hpp"

namespace dudley {

/// Threads that run the iterations of parallel_for. The calling thread works too, so a pool
/// of N threads runs N + 1 iterations at a time; `threads` 0 sizes it to the cores this
/// process may use, or to DUDLEY_NUM_THREADS / OMP_NUM_THREADS when set (minus 1 helpers).
class ThreadPool {
 public:
  explicit ThreadPool(size_t threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Helper threads (the caller is not counted).
  size_t helpers() const noexcept { return workers_.size(); }

  /// Runs body(0) ... body(n - 1), each once, on the helpers and the caller, and returns
  /// when all have finished; the caller's deadline (core/deadline.hpp) holds on the helpers. If
  /// iterations throw, the first exception is rethrown here after the others finished (iterations
  /// not started by then are skipped). A call from inside an iteration (nested) runs its iterations
  /// on the calling thread.
  void parallel_for(size_t n, const std::function<void(size_t)>& body);

  /// A pool shared by the library, sized as `threads` 0 says, made on first use.
  static ThreadPool& shared();

 private:
  void work();
  void run_iterations();

  std::vector<std::jthread> workers_;
  std::mutex call_;  // one parallel_for at a time
  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* body_ = nullptr;
  DeadlineScope deadline_;  ///< the caller's, carried to the helpers for its call
  size_t n_ = 0, next_ = 0, active_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// Runs task(0) ... task(count - 1) on `threads` threads made for this call (the caller
/// being one of them), each task once, handed out in order as threads come free. For work
/// that waits (network requests, reads that fault in pages) and for callers that may be
/// running inside ThreadPool::shared() already. After a task throws, no new task starts; the
/// first exception is rethrown once the running ones are done.
void run_on_own_threads(size_t count, size_t threads, const std::function<void(size_t)>& task);

}  // namespace dudley
