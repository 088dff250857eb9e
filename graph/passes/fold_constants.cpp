// Constant folding: nodes with constant inputs become weights with inline data.
#include "graph/passes/fold_constants.h"

#include "graph/passes/evaluate_node.h"
#include "graph/passes/rebuild_graph.h"

#include <set>

namespace atl {

namespace {

bool is_graph_output(const Graph &g, const std::string &t) {
  for (const std::string &o : g.outputs)
    if (o == t) return true;
  return false;
}

}  // namespace

Graph fold_constants(const Graph &graph, PassStats *stats, std::int64_t max_elements) {
  PassStats local;
  std::map<std::string, Tensor> constants;  // tensor name -> value
  for (const std::string &w : graph.weights) {
    const TensorDecl &d = graph.tensor(w);
    if (!d.data) continue;
    Tensor t;
    t.dtype = d.type.dtype;
    t.shape = concrete_shape(d.type.shape);
    t.data = *d.data;
    constants.emplace(w, std::move(t));
  }

  std::set<std::string> folded_names;  // tensors produced by folded nodes
  std::vector<Node> kept;
  for (NodeId v : graph.order()) {
    const Node &n = graph.node(v);
    bool all_const = true;
    for (const std::string &in : n.inputs)
      if (!in.empty() && !constants.count(in)) all_const = false;
    bool output_ok = true, small = true;
    for (const std::string &o : n.outputs) {
      if (o.empty()) continue;
      if (is_graph_output(graph, o)) output_ok = false;
      const SymShape &s = graph.tensor(o).type.shape;
      if (!is_concrete(s))
        output_ok = false;
      else if (shape_numel(concrete_shape(s)) > max_elements)
        small = false;
    }
    if (!all_const || !output_ok || !small) {
      if (all_const && output_ok && !small) local.count("not folded: result too large", 1, false);
      kept.push_back(n);
      continue;
    }
    std::map<std::string, const Tensor *> values;
    for (const std::string &in : n.inputs)
      if (!in.empty()) values[in] = &constants.at(in);
    std::vector<Tensor> out = evaluate_node(graph, v, values);
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i].empty()) continue;
      constants[n.outputs[i]] = std::move(out[i]);
      folded_names.insert(n.outputs[i]);
    }
    local.count("nodes folded");
  }

  // Folded results that a kept node still reads become weights.
  std::set<std::string> read;
  for (const Node &n : kept)
    for (const std::string &in : n.inputs) read.insert(in);
  std::vector<TensorDecl> new_weights;
  for (const std::string &name : folded_names) {
    if (!read.count(name)) continue;
    const Tensor &t = constants.at(name);
    TensorDecl d;
    d.name = name;
    d.type = graph.tensor(name).type;
    d.role = TensorRole::Weight;
    d.data = t.data;
    d.pointer = graph.tensor(name).pointer;
    new_weights.push_back(std::move(d));
  }
  local.count("constants created", static_cast<std::int64_t>(new_weights.size()), false);
  Graph out = rebuild_graph(graph, kept, new_weights);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
