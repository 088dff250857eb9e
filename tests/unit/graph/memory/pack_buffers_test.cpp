// pack_buffers: every heuristic gives a valid layout; pack_best keeps the smallest arena.
#include "graph/memory/check_arena.h"
#include "graph/memory/pack_buffers.h"

#include <doctest/doctest.h>

#include <random>

using namespace atl::memory;

namespace {

/// Random buffers over `steps` kernels, fixed seed.
std::vector<Buffer> random_buffers(int n, int steps, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Buffer> bs;
  for (int i = 0; i < n; ++i) {
    int a = static_cast<int>(rng() % steps), b = static_cast<int>(rng() % steps);
    bs.push_back({"b" + std::to_string(i), 1 + static_cast<std::int64_t>(rng() % 5000), std::min(a, b), std::max(a, b)});
  }
  return bs;
}

std::int64_t sum_aligned(const std::vector<Buffer> &bs) {
  std::int64_t s = 0;
  for (const Buffer &b : bs) s += aligned_size(b.bytes);
  return s;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("aligned_size rounds up to 64 bytes") {
  CHECK(aligned_size(0) == 0);
  CHECK(aligned_size(1) == 64);
  CHECK(aligned_size(64) == 64);
  CHECK(aligned_size(65) == 128);
}

TEST_CASE("every heuristic packs random buffers validly, between the live bound and no sharing") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::vector<Buffer> bs = random_buffers(30, 12, seed);
    for (PackHeuristic h : all_heuristics()) {
      CAPTURE(heuristic_name(h));
      CAPTURE(seed);
      ArenaLayout l = pack_buffers(bs, h);
      CHECK(l.heuristic == heuristic_name(h));
      CHECK(check_arena(bs, l).empty());
      CHECK(l.peak_bytes >= live_bytes_bound(bs));
      CHECK(l.peak_bytes <= sum_aligned(bs));
    }
  }
}

TEST_CASE("buffers with disjoint lifetimes share the same bytes under every heuristic") {
  std::vector<Buffer> bs = {{"a", 1000, 0, 0}, {"b", 1000, 1, 1}, {"c", 1000, 2, 2}};
  for (PackHeuristic h : all_heuristics()) {
    ArenaLayout l = pack_buffers(bs, h);
    CHECK(l.offsets == std::vector<std::int64_t>{0, 0, 0});
    CHECK(l.peak_bytes == 1024);
  }
}

TEST_CASE("size-first-fit places the largest buffer at offset 0") {
  std::vector<Buffer> bs = {{"small", 64, 0, 3}, {"big", 6400, 0, 3}};
  ArenaLayout l = pack_buffers(bs, PackHeuristic::SizeFirstFit);
  CHECK(l.offsets[1] == 0);
  CHECK(l.offsets[0] == 6400);
}

TEST_CASE("start-first-fit places buffers in order of their first use") {
  std::vector<Buffer> bs = {{"late", 6400, 1, 2}, {"early", 64, 0, 2}};
  ArenaLayout l = pack_buffers(bs, PackHeuristic::StartFirstFit);
  CHECK(l.offsets[1] == 0);
  CHECK(l.offsets[0] == 64);
}

TEST_CASE("best fit takes the smallest gap that fits, first fit the lowest") {
  // After a, b, c (live 0..4) with holes [0,128) from x and [192, 256) from y
  // (x, y live 0..0), a 64-byte buffer live 2..4 fits both holes.
  std::vector<Buffer> bs = {{"x", 128, 0, 0}, {"a", 64, 0, 4}, {"y", 64, 0, 0}, {"c", 64, 0, 4}, {"n", 64, 2, 4}};
  ArenaLayout hand{{0, 128, 192, 256, 0}, 320, "hand"};
  REQUIRE(check_arena(bs, hand).empty());
  // Same order for both heuristics: lifetime-best-fit places a, c, n (longest) before x, y.
  ArenaLayout best = pack_buffers(bs, PackHeuristic::LifetimeBestFit);
  CHECK(check_arena(bs, best).empty());
  CHECK(best.offsets[1] == 0);    // a
  CHECK(best.offsets[3] == 64);   // c
  CHECK(best.offsets[4] == 128);  // n
  CHECK(best.peak_bytes == 192 + 128);
  // Size-best-fit: x (128) first at 0; then a, y, c, n (64 each, by start):
  // a at 128, y at 192, c at 256; n (2..4) sees a and c live: gaps [0,128) and [192,256): best fit is 192.
  ArenaLayout sb = pack_buffers(bs, PackHeuristic::SizeBestFit);
  CHECK(sb.offsets[4] == 192);
  ArenaLayout sf = pack_buffers(bs, PackHeuristic::SizeFirstFit);
  CHECK(sf.offsets[4] == 0);
}

TEST_CASE("area-first-fit places the largest bytes x lifetime first") {
  std::vector<Buffer> bs = {{"wide", 640, 0, 0}, {"long", 128, 0, 9}};
  ArenaLayout l = pack_buffers(bs, PackHeuristic::AreaFirstFit);
  CHECK(l.offsets[1] == 0);
  CHECK(l.offsets[0] == 128);
}

TEST_CASE("pack_best keeps the smallest arena of all heuristics") {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::vector<Buffer> bs = random_buffers(25, 10, seed);
    ArenaLayout best = pack_best(bs);
    CHECK(check_arena(bs, best).empty());
    for (PackHeuristic h : all_heuristics()) CHECK(best.peak_bytes <= pack_buffers(bs, h).peak_bytes);
  }
}

TEST_CASE("an empty buffer list packs into an empty arena") {
  ArenaLayout l = pack_best({});
  CHECK(l.peak_bytes == 0);
  CHECK(l.offsets.empty());
}
}
