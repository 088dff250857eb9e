// NodeGroups: union-find over nodes.
#include "graph/fusion/node_groups.h"

#include <doctest/doctest.h>

using namespace atl;
using atl::fusion::NodeGroups;

TEST_SUITE("graph") {
TEST_CASE("node groups start alone and merge transitively") {
  NodeGroups g(6);
  for (NodeId v = 0; v < 6; ++v) CHECK(g.find(v) == v);
  g.unite(0, 1);
  g.unite(3, 4);
  CHECK(g.same(0, 1));
  CHECK_FALSE(g.same(1, 3));
  g.unite(1, 4);
  CHECK(g.same(0, 3));
  CHECK(g.members(4) == std::vector<NodeId>{0, 1, 3, 4});
  CHECK(g.members(2) == std::vector<NodeId>{2});
  auto a = g.assignment();
  CHECK(a[0] == a[3]);
  CHECK(a[2] == 2);
  CHECK(a[5] == 5);
  CHECK(g.unite(0, 0) == g.find(0));
}
}
