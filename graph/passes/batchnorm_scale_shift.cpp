// BatchNormalization as a per-channel scale and shift (computed once per
// channel) and a multiply-add per element.
#include "graph/passes/batchnorm_scale_shift.h"

#include "graph/passes/rebuild_graph.h"

#include <cstdio>
#include <map>

namespace atl {

namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

/// Why `bn` is not rewritten, or "".
std::string refusal(const Graph &g, const Node &bn) {
  if (bn.inputs.size() != 5 || bn.outputs.size() != 1) return "not the inference form";
  if (bn.attrs.contains("training_mode") && bn.attrs["training_mode"].is_number() &&
      bn.attrs["training_mode"].get<int>() != 0)
    return "training mode";
  const TensorType &x = g.tensor(bn.inputs[0]).type;
  if (x.dtype != DType::F32 || x.rank() < 2 || x.shape[1].is_symbolic()) return "not f32 with a concrete channel axis";
  for (std::size_t i = 1; i < 5; ++i) {
    const TensorType &t = g.tensor(bn.inputs[i]).type;
    if (t.dtype != DType::F32 || t.rank() != 1 || t.shape[0].is_symbolic() || t.shape[0].value != x.shape[1].value)
      return "parameters are not [C] f32";
  }
  for (const std::string &t : bn.inputs)
    if (!compute_identifier(t)) return "a tensor name is not a Compute identifier";
  if (!compute_identifier(bn.outputs[0])) return "a tensor name is not a Compute identifier";
  return "";
}

}  // namespace

std::optional<ScaleShift> batchnorm_params(const Graph &g, const Node &bn, std::set<std::string> &taken,
                                           std::set<std::string> &node_names) {
  if (!refusal(g, bn).empty()) return std::nullopt;
  double eps = number_attr(bn, "epsilon", 1e-5);
  char eps_text[32];
  std::snprintf(eps_text, sizeof eps_text, "%.9g", eps);
  const std::string &scale = bn.inputs[1], &b = bn.inputs[2], &mean = bn.inputs[3], &var = bn.inputs[4];
  std::int64_t c = g.tensor(scale).type.shape[0].value;
  ScaleShift r;
  r.s = fresh_tensor_name(g, bn.outputs[0] + "_scale", taken);
  r.t = fresh_tensor_name(g, bn.outputs[0] + "_shift", taken);
  std::string inv = scale + "(c_) / sqrt(" + var + "(c_) + " + eps_text + ")";
  std::string range = " where c_ in 0:" + num(c);
  r.params.op = "Compute";
  r.params.name = fresh_node_name(bn.name + "_ss", node_names);
  r.params.inputs = {scale, b, mean, var};
  r.params.outputs = {r.s, r.t};
  r.params.attrs = {{"expr", r.s + "(c_) = " + inv + range + "\n" + r.t + "(c_) = " + b + "(c_) - " + mean + "(c_) * " +
                                 inv + range}};
  r.params.pointer = bn.pointer;
  return r;
}

Graph batchnorm_scale_shift(const Graph &graph, PassStats *stats) {
  PassStats local;
  std::vector<Node> in = nodes_in_order(graph), out;
  std::set<std::string> taken, names;
  std::map<std::string, ScaleShift> params_of;  // epsilon and parameter tensors -> their scale and shift
  for (const Node &n : in) names.insert(n.name);
  for (const Node &n : in) {
    if (n.op != "BatchNormalization") {
      out.push_back(n);
      continue;
    }
    if (std::string why = refusal(graph, n); !why.empty()) {
      local.count("not rewritten: " + why, 1, false);
      out.push_back(n);
      continue;
    }
    const TensorType &x = graph.tensor(n.inputs[0]).type;
    if (!is_concrete(x.shape)) {
      local.count("not rewritten: symbolic shape", 1, false);
      out.push_back(n);
      continue;
    }
    // BatchNormalizations with the same parameters (the bands of one, from
    // band_depthwise_chain) share one scale-and-shift computation.
    std::string key = n.attrs.contains("epsilon") ? n.attrs["epsilon"].dump() : "";
    for (std::size_t i = 1; i < 5; ++i) key += "," + n.inputs[i];
    auto [known, fresh] = params_of.try_emplace(key);
    if (fresh) known->second = *batchnorm_params(graph, n, taken, names);
    ScaleShift ss = known->second;
    std::string idx, ranges;
    for (int d = 0; d < x.rank(); ++d) {
      std::string i = d == 1 ? "c_" : "i" + num(d) + "_";
      idx += (d ? ", " : "") + i;
      ranges += (d ? ", " : " where ") + i + " in 0:" + num(x.shape[static_cast<std::size_t>(d)].value);
    }
    const std::string &y = n.outputs[0], &xn = n.inputs[0];
    Node e;
    e.op = "Compute";
    e.name = n.name;
    e.inputs = {xn, ss.s, ss.t};
    e.outputs = {y};
    e.attrs = {{"expr", y + "(" + idx + ") = " + xn + "(" + idx + ") * " + ss.s + "(c_) + " + ss.t + "(c_)" + ranges}};
    e.pointer = n.pointer;
    if (fresh) out.push_back(std::move(ss.params));
    out.push_back(std::move(e));
    local.count("batch normalizations as scale and shift");
  }
  if (stats) stats->merge(local);
  if (local.changes == 0) return graph;
  return rebuild_graph(graph, out);
}

}  // namespace atl
