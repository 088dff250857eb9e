// One node's values from its registry Compute definition.
#include "graph/passes/evaluate_node.h"

#include "graph/compute/compute.h"
#include "graph/compute/widen_accumulators.h"
#include "graph/ir/op_registry.h"

namespace atl {

std::vector<Tensor> evaluate_node(const Graph &graph, NodeId v, const std::map<std::string, const Tensor *> &values) {
  const Node &node = graph.node(v);
  const OpInfo *op = find_op(node.op);
  ATOLL_ASSERT(op != nullptr, "finalized graph has unknown operator " + node.op);
  OpContext ctx = node_context(graph, v);
  std::vector<Tensor> out(node.outputs.size());
  try {
    OpDefinition def = op->define(ctx);
    auto program = compute::widen_accumulators(compute::parse(def.text), low_precision_outputs(def, ctx));
    compute::Signature sig;
    sig.node = node.name;
    // An instantiated graph keeps each parameter as a one-point range (Graph::instantiate).
    for (const auto &[name, range] : graph.params) sig.params[name] = range.min;
    std::map<std::string, const Tensor *> bound;
    for (std::size_t i = 0; i < def.inputs.size() && i < node.inputs.size(); ++i) {
      if (def.inputs[i].empty() || node.inputs[i].empty()) continue;
      auto it = values.find(node.inputs[i]);
      if (it == values.end() || it->second == nullptr)
        throw UserError("no value for input '" + node.inputs[i] + "'", {node.pointer, graph.name, node.name});
      const Tensor &t = *it->second;
      sig.inputs[def.inputs[i]] = compute::TensorUse{compute::TensorRole::Input, t.dtype, t.shape};
      bound[def.inputs[i]] = &t;
    }
    for (std::size_t i = 0; i < def.outputs.size() && i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      sig.outputs.push_back(def.outputs[i]);
      sig.output_shapes[def.outputs[i]] = concrete_shape(ctx.outputs[i].shape);
    }
    compute::Analysis analysis = compute::analyze(*program, sig);
    std::map<std::string, Tensor> result = compute::evaluate(*program, analysis, bound);
    for (std::size_t i = 0; i < def.outputs.size() && i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      Tensor t = std::move(result.at(def.outputs[i]));
      DType want = ctx.outputs[i].dtype;
      if (t.dtype != want) {
        t.dtype = want;
        for (double &x : t.data) x = round_to(want, x);
      }
      out[i] = std::move(t);
    }
  } catch (const UserError &e) {
    throw e.with({node.pointer, graph.name, node.name});
  }
  return out;
}

}  // namespace atl
