// A timer thread that runs a callback when its time runs out before it is stopped.
#include "polyhedral/isl/watchdog.h"

#include <chrono>

namespace atl::poly {

Watchdog::Watchdog(double seconds, std::function<void()> on_expiry) {
  if (seconds <= 0) return;
  thread_ = std::thread([this, seconds, on_expiry = std::move(on_expiry)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!done_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) {
      expired_ = true;
      on_expiry();
    }
  });
}

void Watchdog::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_cv_.notify_one();
  thread_.join();
}

}  // namespace atl::poly
