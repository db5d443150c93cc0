// run_on_own_threads: every task runs once, on several threads at once; after a task throws,
// no new task starts and that exception reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dudley/core/thread_pool.hpp"

namespace dudley {
namespace {

TEST(OwnThreads, EveryTaskOnceOnSeveralThreads) {
  std::vector<std::atomic<int>> runs(100);
  std::mutex lock;
  std::set<std::thread::id> threads;
  std::atomic<int> inside{0}, most{0};
  run_on_own_threads(runs.size(), 4, [&](size_t i) {
    const int now = ++inside;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++runs[i];
    {
      const std::lock_guard<std::mutex> hold(lock);
      threads.insert(std::this_thread::get_id());
    }
    --inside;
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_GT(threads.size(), 1u);
  EXPECT_GT(most.load(), 1);  // tasks that wait overlap
  EXPECT_LE(most.load(), 4);
  run_on_own_threads(0, 4, [](size_t) { FAIL() << "no task to run"; });
}

TEST(OwnThreads, AFailureStopsNewTasksAndIsRethrown) {
  // One thread: tasks run in order, and none after the one that threw.
  std::atomic<size_t> started{0};
  EXPECT_THROW(run_on_own_threads(1000, 1,
                                  [&](size_t i) {
                                    ++started;
                                    if (i == 3) throw std::runtime_error("task 3");
                                  }),
               std::runtime_error);
  EXPECT_EQ(started.load(), 4u);
  // Two threads: the other one stops soon after (each task takes a millisecond, so running
  // them all would take half a second).
  started = 0;
  EXPECT_THROW(run_on_own_threads(1000, 2,
                                  [&](size_t i) {
                                    ++started;
                                    if (i == 3) throw std::runtime_error("task 3");
                                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                  }),
               std::runtime_error);
  EXPECT_LT(started.load(), 1000u);
}

}  // namespace
}  // namespace dudley
