// Common subexpression elimination over the graph's topological order.
#include "graph/passes/eliminate_common_subexpr.h"

#include "graph/passes/rebuild_graph.h"

#include <set>

namespace atl {

namespace {

/// A group of equal nodes (indices into the topological node list).
struct Group {
  std::size_t first;     ///< whose output names are the group's canonical names
  std::size_t survivor;  ///< the node that stays
  std::vector<std::size_t> members;
};

}  // namespace

Graph eliminate_common_subexpr(const Graph &graph, PassStats *stats) {
  PassStats local;
  std::vector<Node> nodes = nodes_in_order(graph);
  std::set<std::string> graph_outputs(graph.outputs.begin(), graph.outputs.end());
  auto has_graph_output = [&](const Node &n) {
    for (const std::string &o : n.outputs)
      if (graph_outputs.count(o)) return true;
    return false;
  };

  std::map<std::string, std::string> canon;  // duplicate output -> first's output
  auto canonical = [&](const std::string &t) {
    auto it = canon.find(t);
    return it == canon.end() ? t : it->second;
  };
  std::map<std::string, std::size_t> by_key;  // key -> group index
  std::vector<Group> groups;
  std::vector<long> group_of(nodes.size(), -1);

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node &n = nodes[i];
    std::string key = n.op + '\x1f' + n.attrs.dump() + '\x1f';
    for (const std::string &in : n.inputs) key += canonical(in) + '\x1e';
    key += '\x1f';
    for (const std::string &o : n.outputs) key += o.empty() ? '0' : '1';
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      by_key.emplace(key, groups.size());
      group_of[i] = static_cast<long>(groups.size());
      groups.push_back(Group{i, i, {i}});
      continue;
    }
    Group &g = groups[it->second];
    if (has_graph_output(n) && has_graph_output(nodes[g.survivor])) {
      local.count("not merged: both produce graph outputs", 1, false);
      continue;
    }
    const Node &first = nodes[g.first];
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) canon[n.outputs[k]] = first.outputs[k];
    g.members.push_back(i);
    if (has_graph_output(n)) g.survivor = i;
    group_of[i] = static_cast<long>(it->second);
    local.count("nodes merged");
  }

  std::map<std::string, std::string> rename;
  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (group_of[i] < 0) {
      kept.push_back(nodes[i]);
      continue;
    }
    const Group &g = groups[static_cast<std::size_t>(group_of[i])];
    if (g.survivor == i) {
      kept.push_back(nodes[i]);
      continue;
    }
    const Node &s = nodes[g.survivor];
    for (std::size_t k = 0; k < nodes[i].outputs.size(); ++k)
      if (!nodes[i].outputs[k].empty()) rename[nodes[i].outputs[k]] = s.outputs[k];
  }
  rename_inputs(kept, rename);
  Graph out = rebuild_graph(graph, kept);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
