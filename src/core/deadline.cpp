#include "dudley/core/deadline.hpp"

#include <utility>

namespace dudley {
namespace {

thread_local std::optional<DeadlineClock::time_point> current_at;
thread_local std::string current_message;

}  // namespace

ThreadDeadline::ThreadDeadline(DeadlineClock::time_point at, std::string message)
    : outer_at_(current_at), outer_message_(current_message) {
  if (!current_at || at < *current_at) {
    current_at = at;
    current_message = std::move(message);
  }
}

ThreadDeadline::ThreadDeadline(const DeadlineScope& carried)
    : outer_at_(current_at), outer_message_(current_message) {
  if (carried.at && (!current_at || *carried.at < *current_at)) {
    current_at = carried.at;
    current_message = carried.message;
  }
}

DeadlineScope current_deadline() {
  return {current_at, current_message};
}

ThreadDeadline::~ThreadDeadline() {
  current_at = outer_at_;
  current_message = std::move(outer_message_);
}

std::optional<DeadlineClock::time_point> thread_deadline() {
  return current_at;
}

void check_thread_deadline() {
  if (current_at && DeadlineClock::now() >= *current_at) throw deadline_passed();
}

DeadlinePassed deadline_passed() {
  return DeadlinePassed(ErrorCategory::kLimit, current_message.empty()
                                                   ? "the caller's time limit has passed"
                                                   : current_message);
}

}  // namespace dudley
