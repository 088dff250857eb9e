// Which operators of a compiled cluster share an outermost loop nest: finds
// the clusters the polyhedral layer split (fused in the graph, not in the code).
#include "src/pipeline/compile_graph.h"

#include "polyhedral/scop/scop.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <optional>

namespace atl {

namespace {

/// The statement name without "_init" and its "_k" index: the node it
/// comes from (as the SCoP names it), or "" when it has no such form.
std::string statement_stem(std::string s) {
  const std::string init = "_init";
  if (s.size() > init.size() && s.compare(s.size() - init.size(), init.size(), init) == 0) s.resize(s.size() - init.size());
  std::size_t end = s.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(s[end - 1]))) --end;
  if (end == s.size() || end < 2 || s[end - 1] != '_') return "";
  return s.substr(0, end - 1);
}

/// Adds the statements of every Store under `stmt` to `out`.
void collect_statements(const poly::LStmtPtr &stmt, std::vector<std::string> &out) {
  if (!stmt) return;
  switch (stmt->kind) {
    case poly::LStmtKind::Store:
      out.push_back(stmt->statement);
      return;
    case poly::LStmtKind::If:
      collect_statements(stmt->then_body, out);
      collect_statements(stmt->else_body, out);
      return;
    case poly::LStmtKind::Block:
    case poly::LStmtKind::For:
      for (const auto &s : stmt->body) collect_statements(s, out);
      return;
  }
}

/// The outermost loop nests of a kernel body: Blocks and Ifs outside every
/// loop are looked through; each loop, and each store outside any loop, is one.
void outermost_nests(const poly::LStmtPtr &stmt, std::vector<poly::LStmtPtr> &out) {
  if (!stmt) return;
  switch (stmt->kind) {
    case poly::LStmtKind::For:
    case poly::LStmtKind::Store:
      out.push_back(stmt);
      return;
    case poly::LStmtKind::If:
      outermost_nests(stmt->then_body, out);
      outermost_nests(stmt->else_body, out);
      return;
    case poly::LStmtKind::Block:
      for (const auto &s : stmt->body) outermost_nests(s, out);
      return;
  }
}

}  // namespace

ClusterLayout cluster_layout(const Graph &graph, const std::vector<NodeId> &cluster, const poly::ClusterResult &result) {
  ClusterLayout layout;
  layout.name = result.name;
  std::map<std::string, std::size_t> index_of;  // node name (raw and sanitised) -> position in the cluster
  for (NodeId v : cluster) {
    const std::string &name = graph.node(v).name;
    index_of.emplace(name, layout.nodes.size());
    index_of.emplace(poly::sanitize_identifier(name), layout.nodes.size());
    layout.nodes.push_back(name);
  }
  // Union-find over the cluster's operators: joined when they share a nest.
  std::vector<std::size_t> parent(layout.nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<poly::LStmtPtr> nests;
  outermost_nests(result.kernel.body, nests);
  layout.loop_nests = static_cast<int>(nests.size());
  std::vector<std::size_t> first_nest(layout.nodes.size(), nests.size());  // first nest of each operator
  for (std::size_t n = 0; n < nests.size(); ++n) {
    std::vector<std::string> statements;
    collect_statements(nests[n], statements);
    std::optional<std::size_t> head;
    for (const std::string &s : statements) {
      auto it = index_of.find(statement_stem(s));
      if (it == index_of.end()) continue;  // not an operator's statement (a copy, say)
      first_nest[it->second] = std::min(first_nest[it->second], n);
      if (!head) head = it->second;
      else parent[find(it->second)] = find(*head);
    }
  }
  // An inlined operator goes with the one that computes its values.
  for (const auto &[node, into] : result.inlined) {
    auto from = index_of.find(node), to = index_of.find(into);
    if (from == index_of.end() || to == index_of.end()) continue;
    first_nest[from->second] = first_nest[to->second];
    parent[find(from->second)] = find(to->second);
  }
  // Parts: operators with statements, grouped by root, ordered by first nest.
  std::map<std::size_t, std::vector<std::string>> by_root;
  std::map<std::size_t, std::size_t> root_first;
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    if (first_nest[i] == nests.size()) continue;  // no statement in the code (nothing to compute)
    std::size_t r = find(i);
    by_root[r].push_back(layout.nodes[i]);
    auto [it, fresh] = root_first.emplace(r, first_nest[i]);
    if (!fresh) it->second = std::min(it->second, first_nest[i]);
  }
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (first nest, root)
  for (const auto &[r, f] : root_first) order.emplace_back(f, r);
  std::sort(order.begin(), order.end());
  for (const auto &[f, r] : order) layout.parts.push_back(by_root[r]);
  return layout;
}

long clusters_split(const std::vector<ClusterLayout> &layouts) {
  long split = 0;
  std::set<std::string> cut;
  for (const ClusterLayout &l : layouts) {
    if (!l.split_from.name.empty()) split += cut.insert(l.split_from.name).second;
    else split += l.split();
  }
  return split;
}

}  // namespace atl
