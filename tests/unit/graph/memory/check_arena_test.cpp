// check_arena: accepts valid layouts and names every kind of violation.
#include "graph/memory/check_arena.h"

#include <doctest/doctest.h>

using namespace atl::memory;

TEST_SUITE("graph") {
TEST_CASE("check_arena accepts buffers that share bytes at different times") {
  std::vector<Buffer> bs = {{"a", 100, 0, 1}, {"b", 100, 2, 3}, {"c", 64, 1, 2}};
  ArenaLayout l{{0, 0, 128}, 192, "hand"};
  CHECK(check_arena(bs, l).empty());
}

TEST_CASE("check_arena reports two live buffers that overlap") {
  std::vector<Buffer> bs = {{"a", 100, 0, 2}, {"b", 100, 2, 3}};
  ArenaLayout l{{0, 64}, 192, "hand"};
  auto p = check_arena(bs, l);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("'a'") != std::string::npos);
  CHECK(p[0].find("overlaps 'b'") != std::string::npos);
}

TEST_CASE("check_arena reports misaligned offsets and buffers past the arena") {
  std::vector<Buffer> bs = {{"a", 100, 0, 0}, {"b", 100, 1, 1}};
  CHECK(check_arena(bs, ArenaLayout{{8, 0}, 128, "hand"}).front().find("not aligned") != std::string::npos);
  CHECK(check_arena(bs, ArenaLayout{{0, 64}, 128, "hand"}).front().find("past the arena") != std::string::npos);
  CHECK(check_arena(bs, ArenaLayout{{0}, 128, "hand"}).front().find("1 offsets for 2 buffers") != std::string::npos);
}
}
