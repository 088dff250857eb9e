// Finds view nodes (row-major relabelling, no copy; Concat in place) and the aliases they make.
#include "graph/memory/views.h"

#include <algorithm>
#include <map>

namespace atl::memory {

namespace {

bool relabels_row_major(const Node &n) {
  return n.op == "Reshape" || n.op == "Flatten" || n.op == "Squeeze" || n.op == "Unsqueeze";
}

bool is_declared(const Graph &g, const std::string &t) {
  auto in = [&](const std::vector<std::string> &v) { return std::find(v.begin(), v.end(), t) != v.end(); };
  return in(g.inputs) || in(g.weights) || in(g.outputs) || g.tensor(t).role != TensorRole::Intermediate;
}

/// Byte offset of each input inside the output when a Concat can be written
/// in place by its inputs' producers, else an empty vector. Legal when every
/// dimension before the axis is 1 (each input is one contiguous slab of the
/// output), shapes are static, and each input is made by a kernel of this
/// graph, is no declared tensor, appears once and has no alias of its own.
std::vector<std::int64_t> concat_in_place(const Graph &g, const Node &n, const std::set<NodeId> &no_kernel,
                                          const std::map<std::string, TensorAlias> &alias_of,
                                          const std::set<std::string> &alias_bases) {
  if (n.outputs.size() != 1 || n.inputs.size() < 2) return {};
  const TensorType &out = g.tensor(n.outputs[0]).type;
  if (!is_concrete(out.shape)) return {};
  std::int64_t axis = n.attrs.contains("axis") && n.attrs["axis"].is_number_integer() ? n.attrs["axis"].get<std::int64_t>() : 0;
  if (axis < 0) axis += out.rank();
  if (axis < 0 || axis >= out.rank()) return {};
  for (std::int64_t d = 0; d < axis; ++d)
    if (out.shape[static_cast<std::size_t>(d)].value != 1) return {};
  std::set<std::string> seen;
  std::vector<std::int64_t> offsets;
  std::int64_t offset = 0;
  for (const std::string &in : n.inputs) {
    if (in.empty() || !seen.insert(in).second || is_declared(g, in) || alias_of.count(in) || alias_bases.count(in))
      return {};
    const TensorType &t = g.tensor(in).type;
    std::optional<NodeId> producer = g.producer(in);
    if (!is_concrete(t.shape) || t.dtype != out.dtype || !producer || no_kernel.count(*producer)) return {};
    offsets.push_back(offset);
    offset += shape_numel(concrete_shape(t.shape)) * static_cast<std::int64_t>(dtype_size(t.dtype));
  }
  return offsets;
}

}  // namespace

std::vector<TensorAlias> plan_views(const Graph &graph, std::set<NodeId> *no_kernel) {
  std::set<NodeId> skipped;
  std::map<std::string, TensorAlias> alias_of;  // tensor -> its (resolved) alias
  std::vector<TensorAlias> out;
  // Relabellings first: their outputs alias their inputs.
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
    skipped.insert(v);
  }
  // Then Concat in place: each input lives inside the output.
  std::set<std::string> alias_bases;
  for (const TensorAlias &a : out) alias_bases.insert(a.base);
  for (NodeId v : graph.order()) {
    const Node &n = graph.node(v);
    if (n.op != "Concat") continue;
    std::vector<std::int64_t> offsets = concat_in_place(graph, n, skipped, alias_of, alias_bases);
    if (offsets.empty()) continue;
    // The output may itself be a view's source: it stays a base.
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      TensorAlias a{n.inputs[i], n.outputs[0], offsets[i]};
      alias_of[a.tensor] = a;
      alias_bases.insert(a.base);
      out.push_back(a);
    }
    skipped.insert(v);
  }
  if (no_kernel) no_kernel->insert(skipped.begin(), skipped.end());
  return out;
}

}  // namespace atl::memory
