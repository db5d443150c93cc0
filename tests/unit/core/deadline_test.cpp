// The calling thread's deadline (issue 62: the viewer's time limit holds inside reads).
#include "dudley/core/deadline.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "dudley/core/thread_pool.hpp"

namespace dudley {
namespace {

TEST(ThreadDeadline, TheEarlierOneHoldsAndEndsWithItsScope) {
  EXPECT_FALSE(thread_deadline());
  EXPECT_NO_THROW(check_thread_deadline());
  const auto soon = DeadlineClock::now() + std::chrono::hours(1);
  {
    const ThreadDeadline outer(soon, "outer");
    EXPECT_EQ(thread_deadline(), soon);
    {
      const ThreadDeadline later(soon + std::chrono::hours(1), "later");
      EXPECT_EQ(thread_deadline(), soon);  // a later deadline inside changes nothing
      const ThreadDeadline past(DeadlineClock::now() - std::chrono::seconds(1), "past: say so");
      try {
        check_thread_deadline();
        ADD_FAILURE() << "no DeadlinePassed";
      } catch (const DeadlinePassed& e) {
        EXPECT_EQ(e.message(), "past: say so");
        EXPECT_EQ(e.category(), ErrorCategory::kLimit);
      }
    }
    EXPECT_EQ(thread_deadline(), soon);
    EXPECT_NO_THROW(check_thread_deadline());
    // Another thread has none.
    std::thread([] { EXPECT_FALSE(thread_deadline()); }).join();
  }
  EXPECT_FALSE(thread_deadline());
}

// Work handed to other threads keeps the caller's deadline (a viewer request's fetch runs
// beside its decoding).
TEST(ThreadDeadline, CarriedToHelperThreads) {
  const auto soon = DeadlineClock::now() + std::chrono::hours(1);
  const ThreadDeadline outer(soon, "carried");
  std::thread([carried = current_deadline(), soon] {
    const ThreadDeadline here(carried);
    EXPECT_EQ(thread_deadline(), soon);
  }).join();
  std::atomic<int> seen{0};
  run_on_own_threads(8, 4, [&](size_t) {
    if (thread_deadline() == soon) ++seen;
  });
  EXPECT_EQ(seen, 8);
}

}  // namespace
}  // namespace dudley
