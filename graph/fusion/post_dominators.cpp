// Post-dominator tree: dominators of the reversed graph rooted at a virtual sink.
#include "graph/fusion/post_dominators.h"
#include "graph/ir/node_graph.h"

#include <boost/graph/dominator_tree.hpp>
#include <boost/property_map/property_map.hpp>

#include <set>

namespace atl::fusion {

std::vector<std::optional<NodeId>> immediate_post_dominators(const Graph &graph) {
  using Reversed = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  using RVertex = boost::graph_traits<Reversed>::vertex_descriptor;
  const NodeGraph &g = graph.nodes();
  std::size_t n = boost::num_vertices(g);
  Reversed r(n + 1);
  RVertex sink = n;
  std::set<std::string> outputs(graph.outputs.begin(), graph.outputs.end());
  for (auto [v, vend] = boost::vertices(g); v != vend; ++v) {
    bool ends = boost::out_degree(*v, g) == 0;
    for (const std::string &t : g[*v].outputs) ends = ends || outputs.count(t);
    if (ends) boost::add_edge(sink, *v, r);
    for (auto [e, eend] = boost::out_edges(*v, g); e != eend; ++e) boost::add_edge(boost::target(*e, g), *v, r);
  }
  std::vector<RVertex> idom(n + 1, boost::graph_traits<Reversed>::null_vertex());
  auto index = boost::get(boost::vertex_index, r);
  auto idom_map = boost::make_iterator_property_map(idom.begin(), index);
  boost::lengauer_tarjan_dominator_tree(r, sink, idom_map);
  std::vector<std::optional<NodeId>> out(n);
  for (std::size_t v = 0; v < n; ++v)
    if (idom[v] != sink && idom[v] != boost::graph_traits<Reversed>::null_vertex()) out[v] = idom[v];
  return out;
}

}  // namespace atl::fusion
