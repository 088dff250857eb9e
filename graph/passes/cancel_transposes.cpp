// Transpose/Transpose and Reshape/Reshape pairs cancelled or composed; no-op Reshapes and Transposes removed.
#include "graph/passes/cancel_transposes.h"

#include "graph/passes/rebuild_graph.h"

#include <set>

namespace atl {

namespace {

/// The node's permutation, normalised (ONNX default: reversed dims).
std::vector<std::int64_t> perm_of(const Node &n, int rank) {
  std::vector<std::int64_t> p;
  if (n.attrs.contains("perm")) {
    for (const auto &x : n.attrs["perm"]) {
      std::int64_t a = x.get<std::int64_t>();
      p.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int i = rank - 1; i >= 0; --i) p.push_back(i);
  }
  return p;
}

bool is_identity(const std::vector<std::int64_t> &p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

/// The shape attribute the composed Reshape(x) uses, or nothing.
std::optional<nlohmann::json> composed_shape(const Node &outer, const TensorType &out) {
  if (outer.attrs.contains("shape")) {
    bool zero = false;
    for (const auto &x : outer.attrs["shape"])
      if (x.get<std::int64_t>() == 0) zero = true;
    if (!zero) return outer.attrs["shape"];
  }
  if (!is_concrete(out.shape)) return std::nullopt;
  nlohmann::json s = nlohmann::json::array();
  for (std::int64_t d : concrete_shape(out.shape)) s.push_back(d);
  return s;
}

}  // namespace

Graph cancel_transposes(const Graph &graph, PassStats *stats) {
  PassStats local;
  std::vector<Node> nodes = nodes_in_order(graph);
  std::set<std::string> graph_outputs(graph.outputs.begin(), graph.outputs.end());
  std::map<std::string, std::size_t> produced_at;  // tensor -> position of its producer in nodes
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const std::string &o : nodes[i].outputs) produced_at[o] = i;
  std::map<std::string, std::string> rename;
  std::vector<bool> removed(nodes.size(), false);
  // Nodes are visited in topological order and rewritten in place, so a chain
  // of three Transposes composes step by step.
  auto producer_of = [&](const std::string &t) -> Node * {
    auto it = produced_at.find(t);
    return it == produced_at.end() || removed[it->second] ? nullptr : &nodes[it->second];
  };
  auto forward = [&](std::size_t i, const std::string &to, const char *what) {
    const std::string &y = nodes[i].outputs[0];
    if (graph_outputs.count(y)) return false;
    rename[y] = to;
    removed[i] = true;
    local.count(what);
    return true;
  };

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Node &n = nodes[i];
    if (n.outputs.size() != 1 || n.inputs.empty()) continue;
    for (std::string &in : n.inputs) {  // earlier rewrites of this run
      for (auto it = rename.find(in); it != rename.end(); it = rename.find(in)) in = it->second;
    }
    const std::string &x = n.inputs[0];
    if (n.op == "Transpose") {
      int rank = graph.tensor(n.outputs[0]).type.rank();
      std::vector<std::int64_t> q = perm_of(n, rank);
      Node *inner = producer_of(x);
      if (inner && inner->op == "Transpose") {
        std::vector<std::int64_t> p = perm_of(*inner, rank), r(q.size());
        for (std::size_t k = 0; k < q.size(); ++k) r[k] = p[static_cast<std::size_t>(q[k])];
        n.inputs[0] = inner->inputs[0];
        if (is_identity(r)) {
          if (!forward(i, n.inputs[0], "transpose pairs cancelled")) {
            n.op = "Identity";
            n.attrs = nlohmann::json::object();
            local.count("transpose pairs cancelled");
          }
        } else {
          n.attrs["perm"] = r;
          local.count("transpose pairs composed");
        }
      } else if (is_identity(q)) {
        forward(i, x, "identity transposes removed");
      }
    } else if (n.op == "Reshape" && n.inputs.size() == 1) {
      const TensorType &out = graph.tensor(n.outputs[0]).type;
      Node *inner = producer_of(x);
      if (inner && inner->op == "Reshape" && inner->inputs.size() == 1) {
        if (auto s = composed_shape(n, out)) {
          n.inputs[0] = inner->inputs[0];
          n.attrs["shape"] = *s;
          n.attrs.erase("allowzero");
          local.count("reshape pairs composed");
        }
      }
      const std::string &src = n.inputs[0];
      const TensorType &in_type = graph.tensor(src).type;
      // A no-op Reshape that gives a name Compute text cannot hold one that it
      // can (name_inputs) stays: Compute nodes may read it by that name.
      if (in_type.shape == out.shape && in_type.dtype == out.dtype &&
          (compute_identifier(src) || !compute_identifier(n.outputs[0])))
        forward(i, src, "no-op reshapes removed");
    }
  }

  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!removed[i]) kept.push_back(nodes[i]);
  rename_inputs(kept, rename);
  Graph out = rebuild_graph(graph, kept);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
