// Atoll's CPU thread pool: std::thread workers running static chunks of a range.
#pragma once

#include <atomic>
#include <cfenv>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace atl::cpu {

/// A fixed set of worker threads. run() splits [begin, end) into at most
/// threads() static chunks of at least `grain` iterations, runs one on the
/// caller and the rest on the workers, and waits for all of them. Workers
/// and the waiting caller spin for up to kSpinMicroseconds before they block
/// on a condition variable.
inline constexpr int kSpinMicroseconds = 200;

class ThreadPool {
public:
  /// `threads` counts the caller; 1 means no workers (everything inline).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  /// Runs fn(chunk_begin, chunk_end) over [begin, end). Not reentrant: a call
  /// from inside a chunk, or while another thread's call runs, runs inline.
  void run(std::int64_t begin, std::int64_t end, std::int64_t grain,
           const std::function<void(std::int64_t, std::int64_t)> &fn);

private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex busy_;  ///< held by the caller of run() for the whole call
  std::mutex m_;     ///< guards the sleeping paths (no wake-up is lost)
  std::condition_variable start_cv_, done_cv_;
  /// Published with release after chunks_, fn_ and env_ are written; workers
  /// spin on it for a while after each chunk before they sleep, so that the
  /// kernels of one graph, called back to back, do not pay a wake-up each.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  bool stop_ = false;
  const std::function<void(std::int64_t, std::int64_t)> *fn_ = nullptr;
  std::fenv_t env_{};  ///< the caller's floating-point environment, applied to every chunk
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks_;  ///< chunk i+1 for worker i
};

/// Sets the thread count of the process-wide pool used by atoll_parallel_for
/// (n <= 0: hardware_concurrency). The pool is rebuilt on the next parallel loop.
void set_num_threads(int n);
/// The thread count parallel loops use now.
int num_threads();

}  // namespace atl::cpu
