// Kernels of their own for the parts of a cluster that its schedule put in separate loop nests.
#include "src/pipeline/compile_graph.h"

#include "graph/fusion/check_legality.h"
#include "graph/fusion/node_facts.h"

#include <optional>
#include <set>

namespace atl {

namespace {

/// The nodes of `cluster` whose names are in `names`, in the cluster's order.
std::vector<NodeId> members(const Graph &graph, const std::vector<NodeId> &cluster,
                            const std::set<std::string> &names) {
  std::vector<NodeId> out;
  for (NodeId v : cluster)
    if (names.count(graph.node(v).name)) out.push_back(v);
  return out;
}

/// The parts in an order in which they can run as kernels: a part after
/// every part whose outputs it reads (the order of their first loop nests
/// where that allows; an initialisation isl hoisted can put a part's first
/// nest before a nest it reads). Nullopt when the parts read each other.
std::optional<std::vector<std::vector<std::string>>> kernel_order(const Graph &graph,
                                                                  const std::vector<std::vector<std::string>> &parts) {
  std::map<std::string, std::size_t> part_of;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (const std::string &n : parts[i]) part_of[n] = i;
  std::vector<std::set<std::size_t>> after(parts.size());  // after[i]: parts that read part i
  std::vector<int> waiting(parts.size(), 0);
  for (NodeId v = 0; v < graph.num_nodes(); ++v) {
    auto to = part_of.find(graph.node(v).name);
    if (to == part_of.end()) continue;
    for (const std::string &t : graph.node(v).inputs) {
      if (t.empty()) continue;
      std::optional<NodeId> u = graph.producer(t);
      if (!u) continue;
      auto from = part_of.find(graph.node(*u).name);
      if (from == part_of.end() || from->second == to->second) continue;
      if (after[from->second].insert(to->second).second) ++waiting[to->second];
    }
  }
  std::vector<std::vector<std::string>> out;
  std::vector<bool> done(parts.size(), false);
  while (out.size() < parts.size()) {
    std::size_t next = parts.size();
    for (std::size_t i = 0; i < parts.size() && next == parts.size(); ++i)
      if (!done[i] && waiting[i] == 0) next = i;
    if (next == parts.size()) return std::nullopt;
    done[next] = true;
    out.push_back(parts[next]);
    for (std::size_t j : after[next]) --waiting[j];
  }
  return out;
}

}  // namespace

std::vector<ClusterPiece> split_cluster(const Graph &graph, const std::vector<NodeId> &cluster,
                                        const ClusterLayout &layout, const CompilePiece &compile) {
  if (!layout.split()) return {};
  // Every operator must be in a part: one that computes nothing would have no kernel to run in.
  std::size_t in_parts = 0;
  for (const auto &part : layout.parts) in_parts += part.size();
  if (in_parts != cluster.size()) return {};

  // Only a split between heavy operators (contractions, reductions) is cut:
  // an epilogue in a nest of its own still writes the kernel's output in
  // place, where a kernel of its own would need an intermediate tensor.
  auto heavy = [&](const std::vector<std::string> &part) {
    for (NodeId v : members(graph, cluster, std::set<std::string>(part.begin(), part.end())))
      if (fusion::is_heavy(fusion::node_kind(graph, v))) return true;
    return false;
  };
  int heavy_parts = 0;
  for (const auto &part : layout.parts) heavy_parts += heavy(part);
  if (heavy_parts < 2) return {};
  std::optional<std::vector<std::vector<std::string>>> parts = kernel_order(graph, layout.parts);
  if (!parts) return {};

  auto piece = [&](const std::set<std::string> &names) {
    ClusterPiece p;
    p.nodes = members(graph, cluster, names);
    p.result = compile(p.nodes);
    p.layout = cluster_layout(graph, p.nodes, p.result);
    return p;
  };
  std::vector<ClusterPiece> pieces;
  bool current_heavy = false;
  std::set<std::string> current;  // names of the piece being grown
  std::optional<ClusterPiece> compiled;  // `current` compiled, when it has been
  auto finish = [&]() {
    if (!compiled) compiled = piece(current);
    pieces.push_back(std::move(*compiled));
    compiled.reset();
  };
  for (const auto &part : *parts) {
    if (current.empty()) {
      current.insert(part.begin(), part.end());
      current_heavy = heavy(part);
      continue;
    }
    const bool part_heavy = heavy(part);
    // Join the next part when the union is still one kernel's worth: one
    // heavy part at most, legal, and laid out as one part on its own.
    std::set<std::string> joined = current;
    joined.insert(part.begin(), part.end());
    if (!(current_heavy && part_heavy) && fusion::find_reentry(graph, members(graph, cluster, joined)).empty()) {
      ClusterPiece p = piece(joined);
      if (!p.layout.split()) {
        current = std::move(joined);
        current_heavy = current_heavy || part_heavy;
        compiled = std::move(p);
        continue;
      }
    }
    finish();
    current = std::set<std::string>(part.begin(), part.end());
    current_heavy = part_heavy;
  }
  finish();
  for (ClusterPiece &p : pieces) p.layout.split_from = {layout.name, layout.loop_nests, layout.parts};
  return pieces;
}

}  // namespace atl
