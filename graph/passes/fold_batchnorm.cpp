// BatchNormalization folded into the weights and bias of a preceding Conv, Gemm or MatMul.
#include "graph/passes/fold_batchnorm.h"

#include "graph/passes/rebuild_graph.h"

#include <cmath>
#include <set>

namespace atl {

namespace {

/// The inline data of a weight, or nullptr (run-time value, node output, omitted input).
const std::vector<double> *const_data(const Graph &g, const std::string &name) {
  if (name.empty() || !g.has_tensor(name)) return nullptr;
  const TensorDecl &d = g.tensor(name);
  return d.role == TensorRole::Weight && d.data ? &*d.data : nullptr;
}

TensorDecl make_weight(const std::string &name, DType dtype, Shape shape, std::vector<double> data,
                       const std::string &pointer) {
  TensorDecl d;
  d.name = name;
  d.type = TensorType{dtype, to_sym_shape(shape)};
  d.role = TensorRole::Weight;
  for (double &x : data) x = round_to(dtype, x);
  d.data = std::move(data);
  d.pointer = pointer;
  return d;
}

/// Everything one fold needs: the per-channel scale and shift.
struct ScaleShift {
  std::vector<double> s, shift;
};

ScaleShift scale_shift(const Graph &g, const Node &bn) {
  const std::vector<double> &scale = *const_data(g, bn.inputs[1]), &b = *const_data(g, bn.inputs[2]),
                            &mean = *const_data(g, bn.inputs[3]), &var = *const_data(g, bn.inputs[4]);
  double eps = bn.attrs.contains("epsilon") ? bn.attrs["epsilon"].get<double>() : 1e-5;
  ScaleShift r;
  for (std::size_t c = 0; c < scale.size(); ++c) {
    double s = scale[c] / std::sqrt(var[c] + eps);
    r.s.push_back(s);
    r.shift.push_back(b[c] - mean[c] * s);
  }
  return r;
}

/// Rewrites the Conv `p` to include the BN; new weights go to `added`.
void fold_into_conv(const Graph &g, Node &p, const ScaleShift &ss, std::vector<TensorDecl> &added,
                    std::set<std::string> &taken) {
  const TensorDecl &w = g.tensor(p.inputs[1]);
  Shape ws = concrete_shape(w.type.shape);
  std::vector<double> wd = *w.data;
  std::size_t m = ss.s.size(), inner = wd.size() / m;
  for (std::size_t c = 0; c < m; ++c)
    for (std::size_t k = 0; k < inner; ++k) wd[c * inner + k] *= ss.s[c];
  const std::vector<double> *bias = p.inputs.size() > 2 ? const_data(g, p.inputs[2]) : nullptr;
  DType bt = bias ? g.tensor(p.inputs[2]).type.dtype : w.type.dtype;
  std::vector<double> bd(m);
  for (std::size_t c = 0; c < m; ++c) bd[c] = (bias ? (*bias)[c] : 0.0) * ss.s[c] + ss.shift[c];
  added.push_back(make_weight(fresh_tensor_name(g, p.name + "_bn_W", taken), w.type.dtype, ws, wd, p.pointer));
  added.push_back(make_weight(fresh_tensor_name(g, p.name + "_bn_B", taken), bt, {static_cast<std::int64_t>(m)}, bd,
                              p.pointer));
  p.inputs.resize(3);
  p.inputs[1] = added[added.size() - 2].name;
  p.inputs[2] = added.back().name;
}

/// Rewrites the Gemm (or 2-D MatMul, which becomes a Gemm) `p` to include the BN.
void fold_into_gemm(const Graph &g, Node &p, const ScaleShift &ss, std::vector<TensorDecl> &added,
                    std::set<std::string> &taken) {
  bool is_gemm = p.op == "Gemm";
  bool trans_b = is_gemm && p.attrs.contains("transB") && p.attrs["transB"].get<std::int64_t>() != 0;
  double beta = is_gemm && p.attrs.contains("beta") ? p.attrs["beta"].get<double>() : 1.0;
  const TensorDecl &b = g.tensor(p.inputs[1]);
  Shape bs = concrete_shape(b.type.shape);
  std::vector<double> bd = *b.data;
  std::int64_t n = static_cast<std::int64_t>(ss.s.size());
  for (std::int64_t i = 0; i < bs[0]; ++i)
    for (std::int64_t j = 0; j < bs[1]; ++j) bd[static_cast<std::size_t>(i * bs[1] + j)] *= ss.s[trans_b ? i : j];

  const TensorType &y = g.tensor(p.outputs[0]).type;
  const std::vector<double> *c = is_gemm && p.inputs.size() > 2 ? const_data(g, p.inputs[2]) : nullptr;
  Shape cs = c ? concrete_shape(g.tensor(p.inputs[2]).type.shape) : Shape{};
  bool along_m = c && cs.size() == 2 && cs[0] != 1;
  std::int64_t rows = along_m ? cs[0] : 1;
  std::vector<double> cd(static_cast<std::size_t>(rows * n));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double cv = 0;
      if (c) {
        // C broadcasts to [M, N] by numpy rules: a size-1 or missing dim repeats.
        std::int64_t cj = !cs.empty() && cs.back() != 1 ? j : 0;
        std::int64_t ci = cs.size() == 2 && cs[0] != 1 ? i : 0;
        std::int64_t cols = cs.empty() ? 1 : cs.back();
        cv = beta * (*c)[static_cast<std::size_t>(ci * cols + cj)];
      }
      cd[static_cast<std::size_t>(i * n + j)] = cv * ss.s[static_cast<std::size_t>(j)] + ss.shift[static_cast<std::size_t>(j)];
    }
  Shape new_cs = along_m ? Shape{rows, n} : Shape{n};
  DType ct = c ? g.tensor(p.inputs[2]).type.dtype : y.dtype;
  added.push_back(make_weight(fresh_tensor_name(g, p.name + "_bn_W", taken), b.type.dtype, bs, bd, p.pointer));
  added.push_back(make_weight(fresh_tensor_name(g, p.name + "_bn_C", taken), ct, new_cs, cd, p.pointer));
  p.op = "Gemm";
  p.inputs.resize(3);
  p.inputs[1] = added[added.size() - 2].name;
  p.inputs[2] = added.back().name;
  p.attrs.erase("beta");
}

}  // namespace

Graph fold_batchnorm(const Graph &graph, PassStats *stats) {
  PassStats local;
  std::vector<Node> nodes = nodes_in_order(graph);
  std::map<std::string, std::size_t> index_of;  // node name -> position in nodes
  for (std::size_t i = 0; i < nodes.size(); ++i) index_of[nodes[i].name] = i;
  std::map<std::string, int> uses = count_uses(graph);
  std::vector<bool> removed(nodes.size(), false);
  std::vector<TensorDecl> added;
  std::set<std::string> taken;

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node &bn = nodes[i];
    if (bn.op != "BatchNormalization" || bn.outputs.size() != 1 || bn.inputs.size() != 5) continue;
    auto pv = graph.producer(bn.inputs[0]);
    if (!pv) continue;
    std::size_t pi = index_of.at(graph.node(*pv).name);
    Node &p = nodes[pi];
    if (p.op != "Conv" && p.op != "Gemm" && p.op != "MatMul") continue;
    if (uses[bn.inputs[0]] != 1) {
      local.count("not folded: producer output has other uses", 1, false);
      continue;
    }
    if (p.op == "MatMul" && (graph.tensor(p.inputs[0]).type.rank() != 2 || graph.tensor(p.inputs[1]).type.rank() != 2)) {
      local.count("not folded: MatMul is not 2-D", 1, false);
      continue;
    }
    bool constant = const_data(graph, p.inputs[1]) != nullptr;
    if (p.inputs.size() > 2 && !p.inputs[2].empty() && !const_data(graph, p.inputs[2])) constant = false;
    for (int k = 1; k < 5; ++k)
      if (!const_data(graph, bn.inputs[static_cast<std::size_t>(k)])) constant = false;
    if (!constant) {
      local.count("not folded: weights are run-time values", 1, false);
      continue;
    }
    ScaleShift ss = scale_shift(graph, bn);
    if (p.op == "Conv")
      fold_into_conv(graph, p, ss, added, taken);
    else
      fold_into_gemm(graph, p, ss, added, taken);
    p.outputs[0] = bn.outputs[0];
    removed[i] = true;
    local.count("batchnorms folded");
  }

  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!removed[i]) kept.push_back(nodes[i]);
  Graph out = rebuild_graph(graph, kept, added);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
