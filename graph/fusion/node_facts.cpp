// Pattern kind, statement count and byte size of graph nodes and tensors, for fusion.
#include "graph/fusion/node_facts.h"

#include <algorithm>
#include <sstream>

namespace atl::fusion {

namespace {

}  // namespace

PatternKind node_kind(const Graph &graph, NodeId v) {
  const OpInfo *op = find_op(graph.node(v).op);
  if (!op) return PatternKind::Opaque;
  return node_pattern(*op, node_context(graph, v));
}

bool is_heavy(PatternKind kind) {
  return kind == PatternKind::Reduction || kind == PatternKind::OutFusable || kind == PatternKind::Opaque;
}

int node_statements(const Graph &graph, NodeId v) {
  const OpInfo *op = find_op(graph.node(v).op);
  if (!op || !op->define) return 1;
  int count = 0;
  try {
    OpDefinition d = op->define(node_context(graph, v));
    std::istringstream in(d.text);
    for (std::string line; std::getline(in, line);) {
      std::size_t p = line.find_first_not_of(" \t");
      if (p == std::string::npos || line[p] == '#' || line.compare(p, 2, "//") == 0) continue;
      count += line.find('=') != std::string::npos;
    }
  } catch (const std::exception &) {
    return 1;  // a definition that needs concrete shapes: count it as one statement
  }
  return std::max(count, 1);
}

std::int64_t tensor_bytes(const Graph &graph, const std::string &tensor) {
  if (tensor.empty() || !graph.has_tensor(tensor)) return 0;
  const TensorType &t = graph.tensor(tensor).type;
  std::int64_t n = static_cast<std::int64_t>(dtype_size(t.dtype));
  for (const Dim &d : t.shape) {
    std::int64_t v = d.value;
    if (d.is_symbolic()) {
      auto it = graph.params.find(d.symbol);
      v = it == graph.params.end() ? 1 : it->second.max;
    }
    n *= std::max<std::int64_t>(v, 1);
  }
  return n;
}

std::string node_label(const Graph &graph, NodeId v) {
  const Node &n = graph.node(v);
  return n.name + " (" + n.op + ")";
}

}  // namespace atl::fusion
