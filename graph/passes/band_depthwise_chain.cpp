// Runs a 1x1 Conv -> depthwise Conv -> 1x1 Conv chain (MobileNet's inverted residual) in bands of output rows.
#include "graph/passes/band_depthwise_chain.h"

#include "graph/ir/op_registry.h"
#include "graph/passes/rebuild_graph.h"
#include "graph/passes/row_bands.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace atl {

namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

std::vector<std::int64_t> ints(const Node &n, const char *key) {
  std::vector<std::int64_t> v;
  if (n.attrs.contains(key) && n.attrs[key].is_array())
    for (const auto &e : n.attrs[key]) v.push_back(e.get<std::int64_t>());
  return v;
}

bool all_equal(const std::vector<std::int64_t> &v, std::int64_t x) {
  return std::all_of(v.begin(), v.end(), [&](std::int64_t e) { return e == x; });
}

/// A static f32 tensor of rank 4.
std::optional<Shape> nchw(const Graph &g, const std::string &t) {
  if (t.empty() || !g.has_tensor(t)) return std::nullopt;
  const TensorType &ty = g.tensor(t).type;
  if (ty.dtype != DType::F32 || ty.rank() != 4 || !is_concrete(ty.shape)) return std::nullopt;
  return concrete_shape(ty.shape);
}

bool is_weight(const Graph &g, const std::string &t) {
  return std::find(g.weights.begin(), g.weights.end(), t) != g.weights.end() || static_cast<bool>(g.tensor(t).data);
}

/// Elementwise on the chain's tensor (input 0) alone: its other inputs are weights of rank <= 1.
bool row_local(const Graph &g, const Node &n) {
  const OpInfo *op = find_op(n.op);
  if (!op || n.outputs.size() != 1 || n.inputs.empty()) return false;
  if (n.op != "BatchNormalization" && op->pattern != PatternKind::Elementwise && op->pattern != PatternKind::Broadcast)
    return false;
  auto in = nchw(g, n.inputs[0]), out = nchw(g, n.outputs[0]);
  if (!in || !out || *in != *out) return false;
  for (std::size_t i = 1; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && (!is_weight(g, n.inputs[i]) || g.tensor(n.inputs[i]).type.rank() > 1)) return false;
  return true;
}

/// Conv attributes that make it a plain convolution with strides and dilations 1.
bool unit_steps(const Node &n) {
  std::string auto_pad = n.attrs.contains("auto_pad") && n.attrs["auto_pad"].is_string()
                             ? n.attrs["auto_pad"].get<std::string>()
                             : "NOTSET";
  return auto_pad == "NOTSET" && all_equal(ints(n, "strides"), 1) && all_equal(ints(n, "dilations"), 1);
}

/// A 1x1, stride-1, unpadded, ungrouped f32 Conv of a rank-4 tensor.
bool pointwise_conv(const Graph &g, const Node &n) {
  if (n.op != "Conv" || n.inputs.size() < 2 || n.outputs.size() != 1 || !unit_steps(n)) return false;
  auto x = nchw(g, n.inputs[0]), w = nchw(g, n.inputs[1]), y = nchw(g, n.outputs[0]);
  if (!x || !w || !y || (*w)[2] != 1 || (*w)[3] != 1) return false;
  if (n.attrs.contains("group") && n.attrs["group"].get<std::int64_t>() != 1) return false;
  return all_equal(ints(n, "pads"), 0);
}

/// A depthwise KxK Conv (group = channels, one filter each), strides and dilations 1.
bool depthwise_conv(const Graph &g, const Node &n) {
  if (n.op != "Conv" || n.inputs.size() < 2 || n.outputs.size() != 1 || !unit_steps(n)) return false;
  auto x = nchw(g, n.inputs[0]), w = nchw(g, n.inputs[1]), y = nchw(g, n.outputs[0]);
  if (!x || !w || !y) return false;
  std::int64_t group = n.attrs.contains("group") ? n.attrs["group"].get<std::int64_t>() : 1;
  return group == (*x)[1] && (*w)[0] == (*x)[1] && (*w)[1] == 1 && (*y)[1] == (*x)[1];
}

/// The chain around one depthwise Conv, in data-flow order.
struct Chain {
  NodeId expand = 0, depthwise = 0, project = 0;
  std::vector<NodeId> after_expand, after_depthwise, after_project;
  std::string end;  ///< the chain's last tensor
};

class Bander {
public:
  Bander(const Graph &g, const BandChainOptions &o, PassStats &st) : g_(g), o_(o), st_(st), uses_(count_uses(g)) {
    for (NodeId v : g.order()) {
      names_.insert(g.node(v).name);
      for (const std::string &t : g.node(v).inputs)
        if (!t.empty()) consumers_[t].push_back(v);
    }
  }

  std::vector<Node> run() {
    std::set<NodeId> replaced;
    std::map<NodeId, std::vector<Node>> insert_at;  // the chain's last node -> its bands
    for (NodeId v : g_.order()) {
      if (replaced.count(v) || !depthwise_conv(g_, g_.node(v))) continue;
      std::optional<Chain> c = chain_of(v);
      if (!c) continue;
      std::vector<Node> bands = band(*c);
      if (bands.empty()) continue;
      NodeId last = c->project;
      std::vector<NodeId> members = {c->expand, c->depthwise, c->project};
      for (const auto *part : {&c->after_expand, &c->after_depthwise, &c->after_project})
        members.insert(members.end(), part->begin(), part->end());
      if (!c->after_project.empty()) last = c->after_project.back();
      replaced.insert(members.begin(), members.end());
      insert_at[last] = std::move(bands);
    }
    std::vector<Node> out;
    for (NodeId v : g_.order()) {
      if (auto it = insert_at.find(v); it != insert_at.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      if (!replaced.count(v)) out.push_back(g_.node(v));
    }
    return out;
  }

private:
  const Graph &g_;
  const BandChainOptions &o_;
  PassStats &st_;
  std::map<std::string, int> uses_;
  std::map<std::string, std::vector<NodeId>> consumers_;
  std::set<std::string> names_, taken_;

  /// The one node that reads `t`, when `t` is an intermediate read once.
  std::optional<NodeId> sole_consumer(const std::string &t) const {
    auto it = consumers_.find(t);
    if (it == consumers_.end() || it->second.size() != 1 || uses_.at(t) != 1) return std::nullopt;
    return it->second.front();
  }

  std::optional<Chain> chain_of(NodeId dw) {
    Chain c;
    c.depthwise = dw;
    // Back to the expand Conv through row-local ops.
    std::string t = g_.node(dw).inputs[0];
    for (;;) {
      std::optional<NodeId> p = g_.producer(t);
      if (!p || uses_[t] != 1) return std::nullopt;
      const Node &n = g_.node(*p);
      if (pointwise_conv(g_, n)) {
        c.expand = *p;
        break;
      }
      if (!row_local(g_, n)) return std::nullopt;
      c.after_expand.insert(c.after_expand.begin(), *p);
      t = n.inputs[0];
    }
    // On to the project Conv, then its row-local ops.
    t = g_.node(dw).outputs[0];
    for (;;) {
      std::optional<NodeId> s = sole_consumer(t);
      if (!s || g_.node(*s).inputs[0] != t) return std::nullopt;
      const Node &n = g_.node(*s);
      if (pointwise_conv(g_, n)) {
        c.project = *s;
        break;
      }
      if (!row_local(g_, n)) return std::nullopt;
      c.after_depthwise.push_back(*s);
      t = n.outputs[0];
    }
    t = g_.node(c.project).outputs[0];
    for (std::optional<NodeId> s; (s = sole_consumer(t)) && g_.node(*s).inputs[0] == t && row_local(g_, g_.node(*s));) {
      c.after_project.push_back(*s);
      t = g_.node(*s).outputs[0];
    }
    c.end = t;
    return c;
  }

  /// A copy of `n` reading `in` (in place of its input 0) and writing a fresh band tensor; returns that tensor.
  std::string copy_into(std::vector<Node> &out, const Node &n, const std::string &in, const std::string &tag) {
    Node c = n;
    c.name = fresh_node_name(n.name + tag, names_);
    c.inputs[0] = in;
    c.outputs = {fresh_tensor_name(g_, n.outputs[0] + tag, taken_)};
    out.push_back(c);
    return c.outputs[0];
  }

  std::vector<Node> band(const Chain &c) {
    const Node &ex = g_.node(c.expand), &dw = g_.node(c.depthwise), &pr = g_.node(c.project);
    const Shape x = *nchw(g_, ex.inputs[0]), e = *nchw(g_, ex.outputs[0]), d = *nchw(g_, dw.outputs[0]),
                y = *nchw(g_, c.end);
    const std::int64_t k = (*nchw(g_, dw.inputs[1]))[2];
    std::vector<std::int64_t> pads = ints(dw, "pads");
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (pads.size() != 4) return {};
    for (const std::string &t :
         {ex.inputs[0], ex.inputs[1], ex.inputs.size() > 2 ? ex.inputs[2] : ex.inputs[1], ex.outputs[0], c.end})
      if (!t.empty() && !compute_identifier(t)) return {};
    // Rows a band: the expanded input and output of the depthwise Conv.
    const std::int64_t row_bytes = 4 * e[0] * e[1] * (e[3] + d[3]), rows_out = d[2];
    const std::int64_t band_rows =
        balanced_band_rows(rows_out, std::max(k, o_.band_bytes / std::max<std::int64_t>(row_bytes, 1)));
    const std::int64_t bands = band_count(rows_out, band_rows);
    if (bands < 2) return {};

    std::vector<Node> out;
    std::vector<std::string> parts;
    const bool bias = ex.inputs.size() > 2 && !ex.inputs[2].empty();
    for (std::int64_t b = 0; b < bands; ++b) {
      const std::string tag = "_band" + num(b);
      const std::int64_t first = b * band_rows, last = std::min(rows_out, first + band_rows);  // y's rows [first, last)
      const std::int64_t lo = std::max<std::int64_t>(0, first - pads[0]), hi = std::min(x[2], last - pads[0] + k - 1);
      // The expand Conv on input rows [lo, hi).
      Node e_k;
      e_k.op = "Compute";
      e_k.name = fresh_node_name(ex.name + tag, names_);
      e_k.pointer = ex.pointer;
      e_k.inputs = {ex.inputs[0], ex.inputs[1]};
      e_k.outputs = {fresh_tensor_name(g_, ex.outputs[0] + tag, taken_)};
      const std::string &et = e_k.outputs[0];
      const std::string lhs = et + "(n_, m_, h_, w_)", ranges = " where n_ in 0:" + num(e[0]) + ", m_ in 0:" + num(e[1]) +
                                                                ", h_ in 0:" + num(hi - lo) + ", w_ in 0:" + num(e[3]);
      std::string expr = lhs + " +=! " + ex.inputs[0] + "(n_, c_, " + (lo ? num(lo) + " + h_" : std::string("h_")) +
                         ", w_) * " + ex.inputs[1] + "(m_, c_, 0, 0)" + ranges + ", c_ in 0:" + num(x[1]);
      if (bias) {
        expr += "\n" + lhs + " += " + ex.inputs[2] + "(m_)" + ranges;
        e_k.inputs.push_back(ex.inputs[2]);
      }
      e_k.attrs = {{"expr", expr}, {"shape", {e[0], e[1], hi - lo, e[3]}}};
      out.push_back(e_k);
      std::string t = et;
      for (NodeId v : c.after_expand) t = copy_into(out, g_.node(v), t, tag);
      // The depthwise Conv, padded only where the band meets the tensor's ends.
      Node dw_k = dw;
      dw_k.attrs["pads"] = {lo - (first - pads[0]), pads[1], (last - pads[0] + k - 1) - hi, pads[3]};
      t = copy_into(out, dw_k, t, tag);
      for (NodeId v : c.after_depthwise) t = copy_into(out, g_.node(v), t, tag);
      t = copy_into(out, pr, t, tag);
      for (NodeId v : c.after_project) t = copy_into(out, g_.node(v), t, tag);
      parts.push_back(t);
    }
    Node j;
    j.op = "Compute";
    j.name = fresh_node_name((c.after_project.empty() ? pr.name : g_.node(c.after_project.back()).name) + "_rows", names_);
    j.pointer = pr.pointer;
    j.inputs = parts;
    j.outputs = {c.end};
    j.attrs = {{"expr", join_row_bands(c.end, parts, {"n_", "c_", "h_", "w_"}, 2, y, band_rows)},
               {"shape", {y[0], y[1], y[2], y[3]}}};
    out.push_back(j);
    st_.count("depthwise chains in bands");
    st_.count("bands", bands, false);
    return out;
  }
};

}  // namespace

Graph band_depthwise_chain(const Graph &graph, PassStats *stats, const BandChainOptions &options) {
  PassStats local;
  std::vector<Node> nodes = Bander(graph, options, local).run();
  if (stats) stats->merge(local);
  if (local.changes == 0) return graph;
  return rebuild_graph(graph, nodes);
}

}  // namespace atl
