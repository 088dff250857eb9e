// Evaluates a concrete graph from the operator registry's Compute
// definitions, node by node: the `definition-vs-reference` oracle's subject.
#include <atoll/pipeline.h>

#include "graph/compute/compute.h"
#include "graph/ir/op_registry.h"

namespace atl {

std::map<std::string, Tensor> run_definitions(const Graph &graph, std::map<std::string, Tensor> values) {
  for (NodeId v : graph.order()) {
    const Node &node = graph.node(v);
    const OpInfo *op = find_op(node.op);
    OpContext ctx{node, {}, {}, &graph.params};
    for (const std::string &in : node.inputs)
      ctx.inputs.push_back(in.empty() ? std::optional<TensorType>() : std::optional<TensorType>(graph.tensor(in).type));
    for (const std::string &o : node.outputs) ctx.outputs.push_back(graph.tensor(o).type);
    try {
      OpDefinition def = op->define(ctx);
      auto program = compute::parse(def.text);
      compute::Signature sig;
      sig.node = node.name;
      std::map<std::string, const Tensor *> bound;
      for (std::size_t i = 0; i < def.inputs.size() && i < node.inputs.size(); ++i) {
        if (def.inputs[i].empty() || node.inputs[i].empty()) continue;
        const Tensor &t = values.at(node.inputs[i]);
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
        values[node.outputs[i]] = std::move(t);
      }
    } catch (const UserError &e) {
      throw e.with({node.pointer, graph.name, node.name});
    }
  }
  return values;
}

}  // namespace atl
