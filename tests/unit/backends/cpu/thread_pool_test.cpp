// The runtime thread pool: every iteration runs once, nested and concurrent calls, thread counts.
#include "backends/cpu/runtime/parallel_for.h"
#include "backends/cpu/runtime/thread_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace atl::cpu {
namespace {

void count_range(void *ctx, std::int64_t b, std::int64_t e) {
  auto *hits = static_cast<std::vector<std::atomic<int>> *>(ctx);
  for (std::int64_t i = b; i < e; ++i) (*hits)[static_cast<std::size_t>(i)]++;
}

TEST_SUITE("backends") {

TEST_CASE("cpu runtime: every iteration runs exactly once for any thread count and range") {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    CHECK(pool.threads() == threads);
    for (std::int64_t n : {0, 1, 2, 7, 100, 1001}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n + 5));
      pool.run(5, n + 5, 1, [&](std::int64_t b, std::int64_t e) { count_range(&hits, b, e); });
      for (std::int64_t i = 0; i < n + 5; ++i) CHECK(hits[static_cast<std::size_t>(i)] == (i >= 5 ? 1 : 0));
    }
  }
}

TEST_CASE("cpu runtime: back-to-back runs, runs after the workers slept, and destruction while they spin") {
  for (int threads : {2, 3}) {
    CAPTURE(threads);
    for (int round = 0; round < 3; ++round) {
      ThreadPool pool(threads);
      std::int64_t total = 0;
      // Back to back: the workers are still spinning when the next run starts.
      for (int k = 0; k < 2000; ++k) {
        std::atomic<std::int64_t> sum{0};
        std::int64_t n = 1 + k % 37;
        pool.run(0, n, 1, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) sum += i;
        });
        CHECK(sum == n * (n - 1) / 2);
        total += sum;
      }
      CHECK(total > 0);
      if (round == 1) {
        // Past the spin window: the workers sleep and a run must wake them.
        std::this_thread::sleep_for(std::chrono::microseconds(20 * kSpinMicroseconds));
        std::atomic<int> hits{0};
        pool.run(0, threads, 1, [&](std::int64_t b, std::int64_t e) { hits += static_cast<int>(e - b); });
        CHECK(hits == threads);
      }
      // round 0 and 2: the pool is destroyed right after a run, while its workers spin.
    }
  }
}

TEST_CASE("cpu runtime: the grain limits the number of chunks") {
  ThreadPool pool(4);
  std::atomic<int> chunks{0};
  pool.run(0, 10, 8, [&](std::int64_t, std::int64_t) { chunks++; });
  CHECK(chunks == 2);
}

TEST_CASE("cpu runtime: nested and concurrent parallel_for calls complete") {
  atoll_set_num_threads(4);
  CHECK(atoll_get_num_threads() == 4);
  std::vector<std::atomic<int>> hits(64 * 64);
  struct Ctx { std::vector<std::atomic<int>> *hits; std::int64_t row; };
  auto outer = [](void *c, std::int64_t b, std::int64_t e) {
    auto *hits = static_cast<std::vector<std::atomic<int>> *>(c);
    for (std::int64_t i = b; i < e; ++i) {
      Ctx ctx{hits, i};
      atoll_parallel_for([](void *cc, std::int64_t b2, std::int64_t e2) {
        auto *x = static_cast<Ctx *>(cc);
        for (std::int64_t j = b2; j < e2; ++j) (*x->hits)[static_cast<std::size_t>(x->row * 64 + j)]++;
      }, &ctx, 0, 64);
    }
  };
  std::thread other([&] { atoll_parallel_for(outer, &hits, 0, 32); });
  atoll_parallel_for(outer, &hits, 32, 64);
  other.join();
  for (auto &h : hits) CHECK(h == 1);
  atoll_set_num_threads(0);
  CHECK(atoll_get_num_threads() == static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // TEST_SUITE

}  // namespace
}  // namespace atl::cpu
