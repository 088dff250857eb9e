// Runs independent jobs on a few threads with a deterministic outcome: every
// job runs (or is skipped once an earlier one failed), and the exception of
// the lowest-numbered failing job is the one rethrown, whatever the threads'
// timing, so a parallel compile reports the same error as a sequential one.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

namespace atl {

/// The threads compile work may use: ATOLL_COMPILE_THREADS when set (1 =
/// sequential), else the hardware threads.
inline std::size_t compile_thread_budget() {
  if (const char *env = std::getenv("ATOLL_COMPILE_THREADS"))
    if (long v = std::strtol(env, nullptr, 10); v > 0) return static_cast<std::size_t>(v);
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Worker threads for `jobs` jobs: `requested`, or the budget when 0; never
/// more than `jobs`, at least one.
inline std::size_t compile_worker_threads(std::size_t jobs, std::size_t requested = 0) {
  std::size_t n = requested ? requested : compile_thread_budget();
  return std::max<std::size_t>(1, std::min(n, jobs));
}

/// Calls fn(i) for i in [0, n) on up to `threads` threads (the caller's
/// among them). Jobs after the lowest failing one that has not started yet
/// are skipped; the lowest failing job's exception is rethrown.
template <typename Fn>
void parallel_jobs(std::size_t n, std::size_t threads, Fn &&fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0}, first_error{n};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      if (i > first_error.load()) continue;
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
        std::size_t seen = first_error.load();
        while (i < seen && !first_error.compare_exchange_weak(seen, i)) {
        }
      }
    }
  };
  threads = std::max<std::size_t>(1, std::min(threads, n));
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread &t : pool) t.join();
  }
  for (std::size_t i = 0; i < n; ++i)
    if (errors[i]) std::rethrow_exception(errors[i]);
}

}  // namespace atl
