#include "dudley/core/thread_pool.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "dudley/core/deadline.hpp"

namespace dudley {
namespace {
thread_local bool inside_iteration = false;

// How many threads (the caller included) the library may keep busy: DUDLEY_NUM_THREADS, else
// OMP_NUM_THREADS (which Dask's workers, joblib and batch systems set to give each process
// its share of the cores: a worker of one thread then decodes on one core, not all), else
// the cores this process may run on.
size_t threads_wanted() {
  for (const char* name : {"DUDLEY_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char* v = std::getenv(name);
    if (v == nullptr) continue;
    size_t n = 0;
    const char* end = v + std::strlen(v);
    if (std::from_chars(v, end, n).ptr == end && n > 0) return std::min<size_t>(n, 1024);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<size_t>(CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = threads_wanted() - 1;
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  wake_.notify_all();
  workers_.clear();  // joins
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool;
  return pool;
}

// Takes iterations until none are left; m_ is held on entry and exit.
void ThreadPool::run_iterations() {
  std::unique_lock lock(m_, std::adopt_lock);
  // The caller's deadline holds on the helpers too (a chunk fetched from a web store by an
  // iteration ends with a viewer request's time limit).
  const ThreadDeadline carried(deadline_);
  while (next_ < n_ && !error_) {
    const size_t i = next_++;
    lock.unlock();
    try {
      inside_iteration = true;
      (*body_)(i);
      inside_iteration = false;
    } catch (...) {
      inside_iteration = false;
      lock.lock();
      if (!error_) error_ = std::current_exception();
      continue;
    }
    lock.lock();
  }
  lock.release();
}

void ThreadPool::work() {
  uint64_t seen = 0;
  std::unique_lock lock(m_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    ++active_;
    lock.release();    // m_ stays locked: run_iterations adopts it
    run_iterations();  // and returns with it locked
    lock = std::unique_lock(m_, std::adopt_lock);
    if (--active_ == 0) done_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (inside_iteration || workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::lock_guard call(call_);
  m_.lock();
  body_ = &body;
  deadline_ = current_deadline();
  n_ = n;
  next_ = 0;
  error_ = nullptr;
  ++generation_;
  wake_.notify_all();
  run_iterations();  // the caller works too
  std::unique_lock lock(m_, std::adopt_lock);
  // No iteration is left to start (all taken, or an error stopped them): wait for those
  // still running on helpers.
  done_.wait(lock, [&] { return active_ == 0; });
  body_ = nullptr;
  n_ = 0;
  std::exception_ptr error = error_;
  error_ = nullptr;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void run_on_own_threads(size_t count, size_t threads, const std::function<void(size_t)>& task) {
  if (count == 0) return;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex lock;
  // The helpers work to the caller's deadline (a viewer request's fetches end with it).
  const DeadlineScope deadline = current_deadline();
  auto work = [&] {
    const ThreadDeadline carried(deadline);
    for (size_t i; !failed && (i = next++) < count;) {
      try {
        task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(lock);
        if (!first) first = std::current_exception();
        failed = true;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (size_t t = 1; t < std::min(threads, count); ++t) helpers.emplace_back(work);
    work();
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace dudley
