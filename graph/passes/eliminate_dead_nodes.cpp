// Dead node elimination by reverse reachability from the graph outputs.
#include "graph/passes/eliminate_dead_nodes.h"

#include "graph/passes/rebuild_graph.h"
#include "graph/ir/node_graph.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>

#include <set>

namespace atl {

Graph eliminate_dead_nodes(const Graph &graph, PassStats *stats) {
  PassStats local;
  const NodeGraph &g = graph.nodes();
  auto reversed = boost::make_reverse_graph(g);
  std::vector<boost::default_color_type> colors(boost::num_vertices(g), boost::white_color);
  auto color_map = boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, g));
  std::vector<NodeId> sources;
  for (const std::string &o : graph.outputs)
    if (auto p = graph.producer(o)) sources.push_back(*p);
  if (!sources.empty()) {
    boost::queue<NodeId> queue;
    boost::breadth_first_search(reversed, sources.begin(), sources.end(), queue, boost::default_bfs_visitor(),
                                color_map);
  }

  std::vector<Node> kept;
  std::set<std::string> read(graph.outputs.begin(), graph.outputs.end());
  for (NodeId v : graph.order()) {
    if (colors[v] == boost::white_color) {
      local.count("nodes removed");
      continue;
    }
    kept.push_back(graph.node(v));
    for (const std::string &in : kept.back().inputs) read.insert(in);
  }
  std::set<std::string> drop;
  for (const std::string &w : graph.weights)
    if (graph.tensor(w).data && !read.count(w)) drop.insert(w);
  local.count("constant weights removed", static_cast<std::int64_t>(drop.size()));
  Graph out = rebuild_graph(graph, kept, {}, drop);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
