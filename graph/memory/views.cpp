// Finds view nodes (row-major relabelling, no copy) and the aliases they make.
#include "graph/memory/views.h"

#include <map>

namespace atl::memory {

namespace {

bool relabels_row_major(const Node &n) {
  return n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" || n.op == "Unsqueeze";
}

}  // namespace

std::vector<TensorAlias> plan_views(const Graph &graph, std::set<NodeId> *no_kernel) {
  std::map<std::string, TensorAlias> alias_of;  // tensor -> its (resolved) alias
  std::vector<TensorAlias> out;
  for (NodeId v : graph.order()) {
    const Node &n = graph.node(v);
    if (!relabels_row_major(n) || n.inputs.empty() || n.outputs.size() != 1) continue;
    const std::string &src = n.inputs.front();
    if (src.empty() || graph.tensor(src).type.dtype != graph.tensor(n.outputs[0]).type.dtype) continue;
    TensorAlias a{n.outputs[0], src, 0};
    if (auto it = alias_of.find(src); it != alias_of.end()) {
      a.base = it->second.base;
      a.byte_offset = it->second.byte_offset;
    }
    alias_of[a.tensor] = a;
    out.push_back(a);
    if (no_kernel) no_kernel->insert(v);
  }
  return out;
}

}  // namespace atl::memory
