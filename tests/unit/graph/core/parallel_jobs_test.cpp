// parallel_jobs: every job runs once; the lowest failing job's error is the
// one rethrown, whatever the thread count.
#include "graph/core/parallel_jobs.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using namespace atl;

TEST_SUITE("graph") {
TEST_CASE("parallel_jobs runs every job once on any thread count") {
  for (std::size_t threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::atomic<int>> ran(37);
    parallel_jobs(ran.size(), threads, [&](std::size_t i) { ++ran[i]; });
    for (const auto &r : ran) CHECK(r.load() == 1);
  }
  parallel_jobs(0, 4, [](std::size_t) { FAIL("no job to run"); });
}

TEST_CASE("parallel_jobs rethrows the lowest failing job's error") {
  for (std::size_t threads : {1u, 2u, 4u}) {
    for (int repeat = 0; repeat < 20; ++repeat) {
      try {
        parallel_jobs(64, threads, [&](std::size_t i) {
          if (i == 41 || i == 17 || i == 60) throw std::runtime_error("job " + std::to_string(i));
        });
        FAIL("no error");
      } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "job 17");
      }
    }
  }
}

TEST_CASE("compile_worker_threads: never more than the jobs, at least one") {
  CHECK(compile_worker_threads(1, 8) == 1);
  CHECK(compile_worker_threads(5, 3) == 3);
  CHECK(compile_worker_threads(0, 3) == 1);
  CHECK(compile_worker_threads(100) >= 1);
}
}
