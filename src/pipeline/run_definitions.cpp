// Evaluates a concrete graph from the operator registry's Compute
// definitions, node by node: the `definition-vs-reference` oracle's subject.
#include "src/pipeline/pipeline.h"

#include "graph/passes/evaluate_node.h"

namespace atl {

std::map<std::string, Tensor> run_definitions(const Graph &graph, std::map<std::string, Tensor> values) {
  for (NodeId v : graph.order()) {
    const Node &node = graph.node(v);
    std::map<std::string, const Tensor *> inputs;
    for (const std::string &in : node.inputs)
      if (!in.empty()) inputs[in] = &values.at(in);
    std::vector<Tensor> outs = evaluate_node(graph, v, inputs);
    for (std::size_t i = 0; i < node.outputs.size() && i < outs.size(); ++i)
      if (!node.outputs[i].empty()) values[node.outputs[i]] = std::move(outs[i]);
  }
  return values;
}

}  // namespace atl
