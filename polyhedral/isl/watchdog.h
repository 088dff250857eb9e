// A timer thread that runs a callback when its time runs out before it is stopped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace atl::poly {

/// Starts a thread that waits `seconds` (> 0; 0 or less starts nothing) and
/// then calls `on_expiry`, unless stop() (or the destructor) comes first.
/// The wall-clock bound of QuotaGuard (isl) and PplDeadline (PPL).
class Watchdog {
public:
  Watchdog(double seconds, std::function<void()> on_expiry);
  ~Watchdog() { stop(); }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;
  /// Ends the wait and joins the thread (on_expiry has run or never will).
  void stop();
  /// True when the time ran out and on_expiry was called.
  bool expired() const { return expired_; }

private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::atomic<bool> expired_{false};
  std::thread thread_;
};

}  // namespace atl::poly
