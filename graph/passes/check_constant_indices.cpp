// Checks that indirect subscripts whose index tensors are compile-time constants stay in bounds (see check_constant_indices.h).
#include "graph/passes/check_constant_indices.h"

#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/ir/op_registry.h"
#include "graph/passes/evaluate_node.h"

#include <map>
#include <set>

namespace atl {

namespace {

/// Tensors read inside a subscript of some read in `e`.
void subscript_reads(const compute::Expr &e, bool in_subscript, std::set<std::string> &out) {
  if (e.kind == compute::ExprKind::Read && in_subscript) out.insert(e.name);
  for (const auto &a : e.args) subscript_reads(*a, in_subscript || e.kind == compute::ExprKind::Read, out);
}

bool concrete(const TensorType &t) {
  for (const Dim &d : t.shape)
    if (d.is_symbolic()) return false;
  return true;
}

}  // namespace

void check_constant_indices(const Graph &graph, std::int64_t max_elements) {
  for (NodeId v : graph.order()) {
    const Node &node = graph.node(v);
    const OpInfo *op = find_op(node.op);
    if (!op) continue;
    OpContext ctx = node_context(graph, v);
    OpDefinition def;
    std::shared_ptr<const compute::Program> program;
    try {
      def = op->define(ctx);
      program = compute::parse(def.text);
    } catch (const UserError &) {
      continue;  // reported where the node is compiled
    }
    std::set<std::string> formal;
    for (const compute::Statement &s : program->statements) {
      subscript_reads(*s.lhs, false, formal);
      subscript_reads(*s.rhs, false, formal);
    }
    if (formal.empty()) continue;
    bool constant = true, small = true;
    std::int64_t elements = 0;
    std::map<std::string, Tensor> zeros;
    for (std::size_t i = 0; i < def.inputs.size() && i < node.inputs.size(); ++i) {
      if (def.inputs[i].empty() || node.inputs[i].empty()) continue;
      const TensorDecl &t = graph.tensor(node.inputs[i]);
      if (formal.count(def.inputs[i]) && !t.data) constant = false;
      if (!concrete(t.type)) small = false;
    }
    for (const std::string &o : node.outputs)
      if (!o.empty() && !concrete(graph.tensor(o).type)) small = false;
    if (!constant || !small) continue;
    for (const std::string &in : node.inputs)
      if (!in.empty()) elements += shape_numel(concrete_shape(graph.tensor(in).type.shape));
    for (const std::string &o : node.outputs)
      if (!o.empty()) elements += shape_numel(concrete_shape(graph.tensor(o).type.shape));
    if (elements > max_elements) continue;
    std::map<std::string, const Tensor *> values;
    for (const std::string &in : node.inputs) {
      if (in.empty() || values.count(in)) continue;
      const TensorDecl &t = graph.tensor(in);
      Tensor &z = zeros.emplace(in, Tensor(t.type.dtype, concrete_shape(t.type.shape))).first->second;
      if (t.data) z.data = *t.data;
      values[in] = &z;
    }
    try {
      (void)evaluate_node(graph, v, values);
    } catch (const UserError &e) {
      if (node.op == "Compute") throw;
      // The registry's definition is not the user's text: name the operator, keep the value and the bounds.
      const std::string &why = e.reason();
      std::size_t at = why.find("has value");
      throw UserError(node.op + ": a constant index is out of range (" + (at == std::string::npos ? why : why.substr(at)) + ")",
                      {node.pointer, graph.name, node.name});
    }
  }
}

}  // namespace atl
