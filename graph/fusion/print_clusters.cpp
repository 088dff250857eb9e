// Prints clusters as text and as a Graphviz picture coloured by cluster.
#include "graph/fusion/print_clusters.h"
#include "graph/ir/node_graph.h"

#include <boost/graph/graphviz.hpp>

#include <iterator>
#include <map>

namespace atl::fusion {

namespace {

/// Graphviz colours, one per cluster, cycling.
const char *kPalette[] = {"lightblue", "palegreen", "lightsalmon", "khaki", "plum", "lightcyan", "pink",
                          "wheat", "lightsteelblue", "darkseagreen1", "thistle", "lightgoldenrod"};

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void print_clusters(std::ostream &os, const Graph &graph, const FusionResult &fusion, const std::set<NodeId> &no_kernel) {
  for (const auto &cluster : fusion.clusters) {
    os << "  cluster " << graph.node(cluster.front()).name << ":";
    for (NodeId v : cluster) os << " " << graph.node(v).name << " (" << graph.node(v).op << ")";
    os << "\n";
  }
  for (NodeId v : graph.order())
    if (no_kernel.count(v)) os << "  view " << graph.node(v).name << " (" << graph.node(v).op << "): no kernel\n";
  for (const UnfusedEdge &e : fusion.unfused)
    os << "  not fused: " << graph.node(e.from).name << " -> " << graph.node(e.to).name << " (" << e.tensor
       << "): " << e.reason << "\n";
}

void print_clusters_dot(std::ostream &os, const Graph &graph, const FusionResult &fusion,
                        const std::set<NodeId> &no_kernel) {
  std::map<NodeId, std::size_t> cluster_of;
  for (std::size_t c = 0; c < fusion.clusters.size(); ++c)
    for (NodeId v : fusion.clusters[c]) cluster_of[v] = c;
  const NodeGraph &g = graph.nodes();
  auto vertex_writer = [&](std::ostream &out, NodeId v) {
    const Node &n = g[v];
    out << "[label=\"" << escape(n.name) << "\\n" << escape(n.op) << "\", shape=box, ";
    auto it = cluster_of.find(v);
    if (it == cluster_of.end() || no_kernel.count(v))
      out << "style=\"filled,dashed\", fillcolor=lightgrey, tooltip=\"view\"]";
    else
      out << "style=filled, fillcolor=" << kPalette[it->second % std::size(kPalette)] << ", tooltip=\"cluster "
          << escape(graph.node(fusion.clusters[it->second].front()).name) << "\"]";
  };
  auto edge_writer = [&](std::ostream &out, NodeGraph::edge_descriptor e) {
    NodeId a = boost::source(e, g), b = boost::target(e, g);
    auto ia = cluster_of.find(a), ib = cluster_of.find(b);
    bool inside = ia != cluster_of.end() && ib != cluster_of.end() && ia->second == ib->second;
    out << "[label=\"" << escape(g[e].tensor) << "\"" << (inside ? "" : ", style=dashed") << "]";
  };
  boost::write_graphviz(os, g, vertex_writer, edge_writer);
}

}  // namespace atl::fusion
