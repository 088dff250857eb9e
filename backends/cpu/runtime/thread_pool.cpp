// The thread pool behind atoll_parallel_for: static chunks, one per thread, caller included.
#include "backends/cpu/runtime/thread_pool.h"

#include "backends/cpu/runtime/parallel_for.h"

#include <algorithm>
#include <chrono>
#include <cfenv>
#include <atomic>
#include <memory>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace atl::cpu {

namespace {

constexpr std::uint64_t kStop = ~std::uint64_t{0};  // the generation that stops the workers

thread_local bool t_inside_run = false;  // this thread runs a chunk now: nested loops go inline

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::mutex g_pool_mutex;
std::shared_ptr<ThreadPool> g_pool;
std::atomic<int> g_requested{0};  // 0: default

int requested_threads() {
  int n = g_requested.load();
  return n > 0 ? n : default_threads();
}

std::shared_ptr<ThreadPool> global_pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  int want = requested_threads();
  if (!g_pool || g_pool->threads() != want) g_pool = std::make_shared<ThreadPool>(want);
  return g_pool;
}

/// Spins until `done()` or kSpinMicroseconds pass; true when done() held.
template <class Done>
bool spin_until(Done done) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > std::chrono::microseconds(kSpinMicroseconds))
      return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  int workers = std::max(threads, 1) - 1;
  chunks_.resize(static_cast<std::size_t>(workers));
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    generation_.store(kStop, std::memory_order_release);
  }
  start_cv_.notify_all();
  for (std::thread &t : workers_) t.join();
}

void ThreadPool::work(int index) {
  t_inside_run = true;
  std::uint64_t seen = 0;
  for (;;) {
    std::pair<std::int64_t, std::int64_t> chunk;
    const std::function<void(std::int64_t, std::int64_t)> *fn;
    if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; })) {
      std::unique_lock<std::mutex> lock(m_);
      start_cv_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
      if (stop_) return;
    }
    seen = generation_.load(std::memory_order_acquire);
    if (seen == kStop) return;
    chunk = chunks_[static_cast<std::size_t>(index)];
    fn = fn_;
    if (chunk.first < chunk.second) {
      // Run in the caller's floating-point environment (rounding mode), not the one
      // this thread was created with.
      std::fenv_t own;
      std::fegetenv(&own);
      std::fesetenv(&env_);
      (*fn)(chunk.first, chunk.second);
      std::fesetenv(&own);
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(m_);
      done_cv_.notify_one();
    }
  }
}

void ThreadPool::run(std::int64_t begin, std::int64_t end, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)> &fn) {
  if (begin >= end) return;
  std::int64_t n = end - begin;
  grain = std::max<std::int64_t>(grain, 1);
  std::int64_t parts = std::min<std::int64_t>(threads(), (n + grain - 1) / grain);
  if (parts <= 1 || workers_.empty() || t_inside_run || !busy_.try_lock()) {
    fn(begin, end);
    return;
  }
  std::lock_guard<std::mutex> busy(busy_, std::adopt_lock);
  // Chunk 0 runs here; chunk i (1..parts-1) on worker i-1; other workers get empty chunks.
  std::int64_t base = n / parts, extra = n % parts;
  std::int64_t first_end = begin + base + (extra > 0 ? 1 : 0);
  // Workers read chunks_, fn_ and env_ after they see the new generation
  // (release / acquire); none reads them before pending_ reaches 0 again.
  std::int64_t at = first_end;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    std::int64_t i = static_cast<std::int64_t>(w) + 1;
    std::int64_t len = i < parts ? base + (i < extra ? 1 : 0) : 0;
    chunks_[w] = {at, at + len};
    at += len;
  }
  fn_ = &fn;
  std::fegetenv(&env_);
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(m_);
    std::uint64_t next = generation_.load(std::memory_order_relaxed) + 1;
    generation_.store(next == kStop ? 1 : next, std::memory_order_release);
  }
  start_cv_.notify_all();
  t_inside_run = true;
  fn(begin, first_end);
  t_inside_run = false;
  if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock<std::mutex> lock(m_);
    done_cv_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
  }
  fn_ = nullptr;
}

void set_num_threads(int n) { g_requested.store(n > 0 ? n : 0); }

int num_threads() { return requested_threads(); }

}  // namespace atl::cpu

extern "C" void atoll_parallel_for(atoll_loop_body body, void *ctx, int64_t begin, int64_t end) {
  if (begin >= end) return;
  std::shared_ptr<atl::cpu::ThreadPool> pool = atl::cpu::global_pool();
  pool->run(begin, end, 1, [&](std::int64_t b, std::int64_t e) { body(ctx, b, e); });
}

extern "C" void atoll_set_num_threads(int n) { atl::cpu::set_num_threads(n); }

extern "C" int atoll_get_num_threads(void) { return atl::cpu::num_threads(); }
