// Runs a concrete graph with the reference interpreter, node by node in
// topological order; Compute nodes run on the direct Compute evaluator.
#include "src/pipeline/pipeline.h"

#include "graph/compute/compute.h"
#include "graph/compute/widen_accumulators.h"
#include "graph/ir/op_registry.h"
#include "src/reference/reference_op.h"

#include <map>
#include <vector>

namespace atl {

namespace {

std::vector<Tensor> run_compute_node(const Graph &graph, const Node &node, const std::map<std::string, Tensor> &values) {
  std::vector<TensorType> out_types;
  for (const std::string &o : node.outputs) out_types.push_back(graph.tensor(o).type);
  auto program = compute::widen_accumulators(compute::parse(node.attrs.at("expr").get<std::string>()),
                                                low_precision_extents(node.outputs, out_types));
  compute::Signature sig;
  sig.node = node.name;
  // An instantiated graph keeps each parameter as a one-point range (Graph::instantiate).
  for (const auto &[name, range] : graph.params) sig.params[name] = range.min;
  std::map<std::string, const Tensor *> bound;
  for (const std::string &in : node.inputs) {
    if (in.empty()) continue;
    const Tensor &t = values.at(in);
    sig.inputs[in] = compute::TensorUse{compute::TensorRole::Input, t.dtype, t.shape};
    bound[in] = &t;
  }
  sig.outputs = node.outputs;
  for (const std::string &o : node.outputs) sig.output_shapes[o] = concrete_shape(graph.tensor(o).type.shape);
  compute::Analysis analysis = compute::analyze(*program, sig);
  std::map<std::string, Tensor> result = compute::evaluate(*program, analysis, bound);
  std::vector<Tensor> outs;
  for (const std::string &o : node.outputs) {
    Tensor t = std::move(result.at(o));
    DType want = graph.tensor(o).type.dtype;
    if (t.dtype != want) {
      t.dtype = want;
      for (double &v : t.data) v = round_to(want, v);
    }
    outs.push_back(std::move(t));
  }
  return outs;
}

}  // namespace

std::map<std::string, Tensor> run_reference(const Graph &graph, std::map<std::string, Tensor> values) {
  for (NodeId v : graph.order()) {
    const Node &node = graph.node(v);
    std::vector<Tensor> outs;
    try {
      if (node.op == "Compute") {
        outs = run_compute_node(graph, node, values);
      } else {
        std::vector<const Tensor *> ins;
        for (const std::string &in : node.inputs) ins.push_back(in.empty() ? nullptr : &values.at(in));
        std::vector<TensorType> types;
        for (const std::string &o : node.outputs) types.push_back(graph.tensor(o).type);
        outs = reference::reference_op(node, ins, types);
      }
    } catch (const UserError &e) {
      throw e.with({node.pointer, graph.name, node.name});
    }
    for (std::size_t i = 0; i < node.outputs.size() && i < outs.size(); ++i)
      if (!node.outputs[i].empty()) values[node.outputs[i]] = std::move(outs[i]);
  }
  return values;
}

}  // namespace atl
