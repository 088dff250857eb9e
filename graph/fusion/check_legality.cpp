// Reachability checks that keep every cluster schedulable as one kernel, and the kernels' call order.
#include "graph/fusion/check_legality.h"

#include "graph/fusion/node_facts.h"
#include "graph/ir/node_graph.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <limits>
#include <queue>
#include <set>
#include <tuple>

namespace atl::fusion {

namespace {

/// Position of every node in graph.order().
std::vector<std::size_t> positions(const Graph &graph) {
  std::vector<std::size_t> pos(graph.num_nodes());
  for (std::size_t i = 0; i < graph.order().size(); ++i) pos[graph.order()[i]] = i;
  return pos;
}

/// Adjacency between groups (deduplicated), and in-degrees.
struct GroupGraph {
  std::map<NodeId, std::set<NodeId>> succ;
  std::map<NodeId, int> indegree;
};

GroupGraph group_graph(const Graph &graph, const std::vector<NodeId> &group_of) {
  const NodeGraph &g = graph.nodes();
  GroupGraph gg;
  for (NodeId v = 0; v < graph.num_nodes(); ++v) gg.indegree.emplace(group_of[v], 0);
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    NodeId a = group_of[boost::source(*e, g)], b = group_of[boost::target(*e, g)];
    if (a != b && gg.succ[a].insert(b).second) ++gg.indegree[b];
  }
  return gg;
}

}  // namespace

std::string find_reentry(const Graph &graph, const std::vector<NodeId> &group) {
  const NodeGraph &g = graph.nodes();
  std::set<NodeId> in(group.begin(), group.end());
  // Breadth-first from every outside successor; parent links rebuild the path.
  std::map<NodeId, NodeId> parent;
  std::deque<NodeId> queue;
  for (NodeId a : group)
    for (auto [e, end] = boost::out_edges(a, g); e != end; ++e) {
      NodeId x = boost::target(*e, g);
      if (!in.count(x) && parent.emplace(x, a).second) queue.push_back(x);
    }
  while (!queue.empty()) {
    NodeId x = queue.front();
    queue.pop_front();
    for (auto [e, end] = boost::out_edges(x, g); e != end; ++e) {
      NodeId y = boost::target(*e, g);
      if (in.count(y)) {
        std::vector<NodeId> path{y, x};
        while (!in.count(path.back())) path.push_back(parent.at(path.back()));
        std::reverse(path.begin(), path.end());
        std::string text;
        for (NodeId p : path) text += (text.empty() ? "" : " -> ") + graph.node(p).name;
        return "the path " + text + " leaves the group at " + node_label(graph, path[1]) + " and re-enters it at " +
               graph.node(y).name;
      }
      if (parent.emplace(y, x).second) queue.push_back(y);
    }
  }
  return "";
}

std::string find_group_cycle(const Graph &graph, const std::vector<NodeId> &group_of) {
  GroupGraph gg = group_graph(graph, group_of);
  std::deque<NodeId> ready;
  for (const auto &[grp, d] : gg.indegree)
    if (d == 0) ready.push_back(grp);
  std::size_t done = 0;
  while (!ready.empty()) {
    NodeId grp = ready.front();
    ready.pop_front();
    ++done;
    for (NodeId s : gg.succ[grp])
      if (--gg.indegree[s] == 0) ready.push_back(s);
  }
  if (done == gg.indegree.size()) return "";
  std::map<NodeId, std::string> members;  // group -> "{a, b}" in node order
  for (NodeId v = 0; v < graph.num_nodes(); ++v) {
    std::string &m = members[group_of[v]];
    m += (m.empty() ? "" : ", ") + graph.node(v).name;
  }
  std::string names;
  int shown = 0;
  for (const auto &[grp, d] : gg.indegree)
    if (d > 0 && shown < 4) {
      names += (names.empty() ? "{" : " and {") + members.at(grp) + "}";
      ++shown;
    }
  return "the groups " + names + " depend on each other (a cycle between groups)";
}

std::vector<std::vector<NodeId>> order_groups(const Graph &graph, const std::vector<NodeId> &group_of,
                                              const std::set<NodeId> &skip) {
  std::vector<std::size_t> pos = positions(graph);
  std::map<NodeId, std::vector<NodeId>> members;
  for (NodeId v : graph.order()) members[group_of[v]].push_back(v);
  GroupGraph gg = group_graph(graph, group_of);
  // (-(step of the latest producer group), earliest member's position, group): smallest first.
  using Item = std::tuple<std::ptrdiff_t, std::size_t, NodeId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  // Groups of no producer group: those that read only weights (weight
  // transforms, run once) first; those that read a graph input as if their
  // producer ran before all others.
  const std::set<std::string> inputs(graph.inputs.begin(), graph.inputs.end());
  for (const auto &[grp, d] : gg.indegree) {
    if (d != 0) continue;
    bool reads_input = false;
    for (NodeId v : members[grp])
      for (const std::string &t : graph.node(v).inputs) reads_input = reads_input || inputs.count(t);
    ready.emplace(reads_input ? 1 : std::numeric_limits<std::ptrdiff_t>::min(), pos[members[grp].front()], grp);
  }
  std::vector<std::vector<NodeId>> out;
  for (std::ptrdiff_t step = 0; !ready.empty(); ++step) {
    NodeId grp = std::get<2>(ready.top());
    ready.pop();
    std::vector<NodeId> kept;
    for (NodeId v : members[grp])
      if (!skip.count(v)) kept.push_back(v);
    if (!kept.empty()) out.push_back(std::move(kept));
    for (NodeId s : gg.succ[grp])
      if (--gg.indegree[s] == 0) ready.emplace(-step, pos[members[s].front()], s);
  }
  std::size_t placed = 0;
  for (const auto &c : out) placed += c.size();
  ATOLL_ASSERT(placed + skip.size() >= graph.num_nodes(), "order_groups on a cyclic graph of groups");
  return out;
}

}  // namespace atl::fusion
