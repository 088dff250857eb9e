// Blocked-layout convolution: Conv rewritten to a Compute over [N, Co/B, Oh, Ow, B] with its weight reorder and NCHW conversion.
#include "graph/passes/block_conv_layout.h"

#include "graph/ir/op_registry.h"
#include "graph/passes/batchnorm_scale_shift.h"
#include "graph/passes/rebuild_graph.h"
#include "graph/passes/row_bands.h"
#include "graph/passes/winograd_conv.h"

#include <cstdio>
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace atl {

namespace {

/// A tensor kept in blocked form: the NCHW tensor `nchw` is the conversion of
/// `blocked` [N, ceil(C/B), H, W, B], of which the first `channels` lanes are real.
struct Blocked {
  std::string blocked;
  std::int64_t channels = 0;
  Shape shape;  ///< of `blocked`
};

std::string num(std::int64_t v) { return std::to_string(v); }

/// "S * o + D * k - P" without the parts that are no-ops.
std::string window_index(const std::string &o, const std::string &k, std::int64_t s, std::int64_t d, std::int64_t p) {
  std::string t = (s == 1 ? o : num(s) + " * " + o) + " + " + (d == 1 ? k : num(d) + " * " + k);
  if (p > 0) t += " - " + num(p);
  if (p < 0) t += " + " + num(-p);
  return t;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The conversion of blocked `in` [N, CB, H, W, B] to NCHW `out` [N, C, H, W]:
/// one statement over the full blocks with the lane as its own index
/// (`out(n, B * cb + l, h, w) = in(n, cb, h, w, l)`: a B x B block of `in` is
/// contiguous along (w, l), which the CPU backend copies with in-register
/// transposes), one more for the lanes of a last partial block.
std::string to_nchw_expr(const std::string &out, const std::string &in, std::int64_t n, std::int64_t c, std::int64_t h,
                         std::int64_t w, int b) {
  const std::int64_t full = c / b, part = c % b;
  const std::string spatial = ", h_, w_)", ranges = ", h_ in 0:" + num(h) + ", w_ in 0:" + num(w);
  std::string text;
  if (full > 0)
    text = out + "(n_, " + num(b) + " * cb_ + l_" + spatial + " = " + in + "(n_, cb_, h_, w_, l_) where n_ in 0:" + num(n) +
           ", cb_ in 0:" + num(full) + ", l_ in 0:" + num(b) + ranges;
  if (part > 0)
    text += std::string(full > 0 ? "\n" : "") + out + "(n_, " + num(full * b) + " + l_" + spatial + " = " + in + "(n_, " +
            num(full) + ", h_, w_, l_) where n_ in 0:" + num(n) + ", l_ in 0:" + num(part) + ranges;
  return text;
}

/// The conversion node's Blocked entry when `node` is one this pass made (its expr is to_nchw_expr's text).
std::optional<Blocked> as_conversion(const Graph &g, const Node &node, int b) {
  if (node.op != "Compute" || node.inputs.size() != 1 || node.outputs.size() != 1) return std::nullopt;
  if (!node.attrs.contains("expr") || !node.attrs["expr"].is_string() || !g.has_tensor(node.inputs[0])) return std::nullopt;
  const TensorType &in = g.tensor(node.inputs[0]).type, &out = g.tensor(node.outputs[0]).type;
  if (in.rank() != 5 || out.rank() != 4 || !is_concrete(in.shape) || !is_concrete(out.shape)) return std::nullopt;
  Shape o = concrete_shape(out.shape);
  if (node.attrs["expr"].get<std::string>() != to_nchw_expr(node.outputs[0], node.inputs[0], o[0], o[1], o[2], o[3], b))
    return std::nullopt;
  return Blocked{node.inputs[0], o[1], concrete_shape(in.shape)};
}

/// Everything the blocked Conv needs, or a reason why it is not blocked.
struct ConvGeometry {
  std::int64_t n = 0, ci = 0, h = 0, w = 0, co = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::int64_t s[2] = {1, 1}, d[2] = {1, 1}, p[2] = {0, 0};
  std::int64_t end[2] = {0, 0};  ///< rows / columns read past the input's end
  bool outside = false;          ///< some read falls in the padding
};

std::optional<ConvGeometry> geometry(const Graph &g, const Node &conv, std::string &why) {
  if (conv.inputs.size() < 2 || conv.inputs[1].empty()) return why = "no weights", std::nullopt;
  const TensorType &x = g.tensor(conv.inputs[0]).type, &wt = g.tensor(conv.inputs[1]).type,
                   &y = g.tensor(conv.outputs[0]).type;
  if (x.rank() != 4) return why = "not 2-D", std::nullopt;
  if (x.dtype != DType::F32 || wt.dtype != DType::F32 || y.dtype != DType::F32) return why = "not f32", std::nullopt;
  if (!is_concrete(x.shape) || !is_concrete(wt.shape) || !is_concrete(y.shape)) return why = "symbolic shape", std::nullopt;
  const nlohmann::json &a = conv.attrs;
  if (a.contains("group") && a["group"].get<std::int64_t>() != 1) return why = "grouped", std::nullopt;
  std::string auto_pad = a.contains("auto_pad") && a["auto_pad"].is_string() ? a["auto_pad"].get<std::string>() : "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return why = "auto_pad SAME", std::nullopt;
  ConvGeometry c;
  Shape xs = concrete_shape(x.shape), ws = concrete_shape(wt.shape), ys = concrete_shape(y.shape);
  c.n = xs[0], c.ci = xs[1], c.h = xs[2], c.w = xs[3];
  c.co = ws[0], c.kh = ws[2], c.kw = ws[3], c.oh = ys[2], c.ow = ys[3];
  auto ints = [&](const char *k, std::size_t size) {
    std::vector<std::int64_t> v;
    if (a.contains(k) && a[k].is_array())
      for (const auto &e : a[k]) v.push_back(e.get<std::int64_t>());
    return v.size() == size ? v : std::vector<std::int64_t>{};
  };
  std::vector<std::int64_t> s = ints("strides", 2), d = ints("dilations", 2), p = ints("pads", 4);
  for (int i = 0; i < 2; ++i) {
    if (!s.empty()) c.s[i] = s[static_cast<std::size_t>(i)];
    if (!d.empty()) c.d[i] = d[static_cast<std::size_t>(i)];
    if (!p.empty() && auto_pad == "NOTSET") c.p[i] = p[static_cast<std::size_t>(i)];
  }
  std::int64_t in[2] = {c.h, c.w}, out[2] = {c.oh, c.ow}, k[2] = {c.kh, c.kw};
  for (int i = 0; i < 2; ++i) {
    c.end[i] = std::max<std::int64_t>(0, (out[i] - 1) * c.s[i] + (k[i] - 1) * c.d[i] - c.p[i] - (in[i] - 1));
    if (c.p[i] > 0 || c.end[i] > 0) c.outside = true;
  }
  return c;
}

/// Elementwise on equal shapes (unary, or binary without broadcasting), f32.
bool elementwise_node(const Graph &g, const Node &node) {
  const OpInfo *op = find_op(node.op);
  if (!op || (op->pattern != PatternKind::Elementwise && op->pattern != PatternKind::Broadcast)) return false;
  if (node.outputs.size() != 1 || node.inputs.empty()) return false;
  const TensorType &out = g.tensor(node.outputs[0]).type;
  if (out.dtype != DType::F32 || out.rank() != 4) return false;
  for (const std::string &i : node.inputs)
    if (i.empty() || g.tensor(i).type.str() != out.str()) return false;
  return true;
}

class Rewriter {
public:
  Rewriter(const Graph &g, const BlockConvOptions &o, PassStats &st) : g_(g), o_(o), st_(st) {
    for (NodeId v : g.order()) names_.insert(g.node(v).name);
  }

  std::vector<Node> run() {
    for (NodeId v : g_.order()) {
      const Node &node = g_.node(v);
      if (auto b = as_conversion(g_, node, o_.block)) blocked_[node.outputs[0]] = *b;
      if (node.op == "Conv" && rewrite_conv(node)) continue;
      if (elementwise_node(g_, node) && rewrite_elementwise(node)) continue;
      if (node.op == "BatchNormalization" && rewrite_batchnorm(node)) continue;
      out_.push_back(node);
    }
    account();
    return std::move(out_);
  }

private:
  const Graph &g_;
  const BlockConvOptions &o_;
  PassStats &st_;
  std::vector<Node> out_;
  std::map<std::string, Blocked> blocked_;  ///< NCHW tensor -> its blocked form
  std::map<std::string, std::string> converted_;  ///< blocked copy made by add_blocked_input -> its NCHW tensor

  /// NCHW tensor `x` read as blocked [N, CB, H, W, B] at rows `h`, columns `w`.
  std::string blocked_read(const std::string &x, const std::string &h, const std::string &w) const {
    return x + "(n_, " + num(o_.block) + " * cb_ + l_, " + h + ", " + w + ")";
  }
  std::set<std::string> names_, taken_;
  std::vector<std::size_t> conversions_;  ///< positions in out_ of the NCHW conversions made here
  std::map<std::string, std::int64_t> conversion_bytes_;  ///< by output tensor

  Node compute(std::string name, std::vector<std::string> in, std::string out, std::string expr, const Node &from) {
    Node n;
    n.op = "Compute";
    n.name = fresh_node_name(name, names_);
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    n.attrs = {{"expr", std::move(expr)}};
    n.pointer = from.pointer;
    return n;
  }

  /// Appends the conversion of `blk` [N, CB, H, W, B] to NCHW `nchw` and records it.
  void add_conversion(const std::string &nchw, const std::string &blk, const Shape &s, const Node &from) {
    out_.push_back(compute(from.name + "_nchw", {blk}, nchw, to_nchw_expr(nchw, blk, s[0], s[1], s[2], s[3], o_.block), from));
    conversions_.push_back(out_.size() - 1);
    std::int64_t lanes = s[0] * ceil_div(s[1], o_.block) * o_.block * s[2] * s[3];
    conversion_bytes_[nchw] = 4 * (lanes + s[0] * s[1] * s[2] * s[3]);
    blocked_[nchw] = Blocked{blk, s[1], {s[0], ceil_div(s[1], o_.block), s[2], s[3], o_.block}};
  }

  bool refuse(const std::string &why) {
    st_.count("not blocked: " + why, 1, false);
    return false;
  }

  bool rewrite_conv(const Node &conv) {
    std::string why;
    auto c = geometry(g_, conv, why);
    if (!c) return refuse(why);
    if (g_.schedule.tile.count(conv.name)) return refuse("a tile hint names it");
    const int b = o_.block;
    std::int64_t cb = ceil_div(c->co, b), macs = c->n * c->co * c->oh * c->ow * c->ci * c->kh * c->kw;
    if (macs < o_.min_macs) return refuse("too little work");
    if (c->ci * c->kh * c->kw < o_.min_reduction) return refuse("reduction too short");
    if (static_cast<double>(cb * b) > o_.max_padding * static_cast<double>(c->co)) return refuse("too many padded channels");
    auto xb = blocked_.find(conv.inputs[0]);
    // A 1x1, stride-1 conv of an NCHW input is a GEMM whose columns (the
    // pixels) are contiguous (BlockConvOptions::pointwise_nchw); one that
    // widens a blocked input reads the input's NCHW conversion.
    bool pointwise = c->kh == 1 && c->kw == 1 && c->s[0] == 1 && c->s[1] == 1 && !c->outside;
    if (o_.pointwise_nchw && pointwise && (xb == blocked_.end() ? (cb * b != c->co || c->co > c->ci) : c->co > c->ci))
      return refuse(xb == blocked_.end() ? "1x1 conv of an NCHW input that widens or pads the channels (an NCHW GEMM is faster)"
                                         : "1x1 conv that widens a blocked input (an NCHW GEMM of its NCHW conversion is faster)");
    bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    std::string x = xb != blocked_.end() ? xb->second.blocked : conv.inputs[0];
    for (const std::string &t : {x, conv.inputs[1], conv.outputs[0], has_bias ? conv.inputs[2] : x})
      if (!compute_identifier(t)) return refuse("a tensor name is not a Compute identifier");
    // An NCHW input of whole blocks read by a window or through padding:
    // blocked first (BlockConvOptions::block_nchw_inputs), once per tensor.
    if (xb == blocked_.end() && o_.block_nchw_inputs && c->ci % b == 0 && (c->kh * c->kw > 1 || c->outside)) {
      xb = add_blocked_input(conv, *c);
      x = xb->second.blocked;
    }

    // A blocked input of whole blocks is reduced over its block and lane as
    // two indices, the lane innermost: the micro-kernel's broadcasts walk
    // one cache line with plain addresses (with c_ / B and c_ % B of one
    // index, AVX2's 6 x 16 tile spent 20 integer operations per 12 FMAs),
    // and its weights are laid out [CB, Kh, Kw, Ci, B], so that the
    // reduction (kh_, kw_, cb_, cl_) reads them in order.
    const bool lanes_split = xb != blocked_.end() && c->ci % b == 0;
    if (o_.winograd && lanes_split && c->kh == 3 && c->kw == 3 && c->s[0] == 1 && c->s[1] == 1 && c->d[0] == 1 &&
        c->d[1] == 1 && c->co % b == 0)
      return rewrite_winograd(conv, *c, x, has_bias);
    // Weights [Co, Ci, Kh, Kw] -> [CB, Ci, Kh, Kw, B] (or [CB, Kh, Kw, Ci, B]), zero past Co.
    std::string w5 = fresh_tensor_name(g_, conv.inputs[1] + "_blk", taken_);
    std::string wsrc = conv.inputs[1] + "(" + num(b) + " * ob_ + o_, c_, kh_, kw_)";
    if (cb * b != c->co) wsrc = "guard(" + wsrc + ", 0)";
    const std::string c_range = "c_ in 0:" + num(c->ci), k_ranges = "kh_ in 0:" + num(c->kh) + ", kw_ in 0:" + num(c->kw);
    out_.push_back(compute(conv.name + "_wblk", {conv.inputs[1]}, w5,
                           w5 + (lanes_split ? "(ob_, kh_, kw_, c_, o_)" : "(ob_, c_, kh_, kw_, o_)") + " = " + wsrc +
                               " where ob_ in 0:" + num(cb) + ", " +
                               (lanes_split ? k_ranges + ", " + c_range : c_range + ", " + k_ranges) +
                               ", o_ in 0:" + num(b),
                           conv));
    if (!g_.tensor(conv.inputs[1]).data) {
      std::int64_t wn = c->co * c->ci * c->kh * c->kw;
      st_.count("conversion bytes", 4 * (wn + cb * b * c->ci * c->kh * c->kw), false);
    }

    // Zero padding as an explicit copy: a guard on the micro-kernel's
    // broadcast loads costs more than one pass over the input.
    std::int64_t pad[2] = {c->p[0], c->p[1]};
    if (c->outside) {
      x = add_padded_input(conv, x, xb != blocked_.end(), *c);
      pad[0] = pad[1] = 0;
    }
    // The blocked convolution.
    std::string ih = window_index("oh_", "kh_", c->s[0], c->d[0], pad[0]);
    std::string iw = window_index("ow_", "kw_", c->s[1], c->d[1], pad[1]);
    std::string xr = lanes_split ? x + "(n_, cb_, " + ih + ", " + iw + ", cl_)"
                     : xb != blocked_.end()
                         ? x + "(n_, floor(c_ / " + num(b) + "), " + ih + ", " + iw + ", c_ % " + num(b) + ")"
                         : x + "(n_, c_, " + ih + ", " + iw + ")";
    std::string wr = w5 + (lanes_split ? "(ob_, kh_, kw_, " + num(b) + " * cb_ + cl_, o_)" : "(ob_, c_, kh_, kw_, o_)");
    std::string red_ranges = lanes_split ? ", " + k_ranges + ", cb_ in 0:" + num(c->ci / b) + ", cl_ in 0:" + num(b)
                                         : ", " + c_range + ", " + k_ranges;
    std::string y5 = fresh_tensor_name(g_, conv.outputs[0] + "_blk", taken_);
    std::string lhs = y5 + "(n_, ob_, oh_, ow_, o_)";
    std::string out_ranges = " where n_ in 0:" + num(c->n) + ", ob_ in 0:" + num(cb) + ", oh_ in 0:" + num(c->oh) +
                             ", ow_ in 0:" + num(c->ow) + ", o_ in 0:" + num(b);
    // (The weights first when they order the reduction: a statement's
    // indices follow their first appearance.)
    std::string expr = lhs + " +=! " + (lanes_split ? wr + " * " + xr : xr + " * " + wr) + out_ranges + red_ranges;
    std::vector<std::string> inputs = {x, w5};
    if (has_bias) {
      std::string br = conv.inputs[2] + "(" + num(b) + " * ob_ + o_)";
      if (cb * b != c->co) br = "guard(" + br + ", 0)";
      expr += "\n" + lhs + " += " + br + out_ranges;
      inputs.push_back(conv.inputs[2]);
    }
    Node bc = compute(conv.name, inputs, y5, expr, conv);
    bc.name = conv.name;  // the blocked conv keeps the Conv's name (hints, explain)
    out_.push_back(bc);
    st_.count("convs blocked");
    if (xb != blocked_.end()) st_.count("convs reading a blocked input");
    add_conversion(conv.outputs[0], y5, {c->n, c->co, c->oh, c->ow}, conv);
    return true;
  }

  /// The conv as Winograd F(2x2, 3x3) (winograd_conv.h) of its blocked input
  /// `x`, zero padded to whole 4 x 4 tiles; its output blocked as the direct
  /// form's is.
  bool rewrite_winograd(const Node &conv, ConvGeometry c, std::string x, bool has_bias) {
    const int b = o_.block;
    const std::int64_t need[2] = {winograd_input_extent(c.oh), winograd_input_extent(c.ow)}, in[2] = {c.h, c.w};
    for (int i = 0; i < 2; ++i) {
      c.end[i] = std::max(c.end[i], need[i] - c.p[i] - in[i]);
      if (c.end[i] > 0) c.outside = true;
    }
    if (c.outside) x = add_padded_input(conv, x, true, c);
    WinogradConv wc;
    wc.x = x;
    wc.w = conv.inputs[1];
    wc.bias = has_bias ? conv.inputs[2] : "";
    wc.u = fresh_tensor_name(g_, conv.inputs[1] + "_wino", taken_);
    wc.n = c.n, wc.ci = c.ci, wc.co = c.co, wc.oh = c.oh, wc.ow = c.ow;
    wc.block = b;
    wc.panel = o_.winograd_panel;
    const std::string y5 = fresh_tensor_name(g_, conv.outputs[0] + "_blk", taken_);
    auto shaped = [](Node n, std::vector<std::int64_t> shape) {
      n.attrs["shape"] = shape;
      return n;
    };
    out_.push_back(compute(conv.name + "_wino_w", {wc.w}, wc.u, winograd_exprs(wc).weights, conv));

    // Bands of tile rows: v and m of one tile row take 16 * N * tiles_w * (Ci + Co) floats.
    const std::int64_t tile_rows = winograd_tiles(c.oh), row_bytes = 4 * 16 * c.n * winograd_tiles(c.ow) * (c.ci + c.co);
    const std::int64_t band_rows =
        balanced_band_rows(tile_rows, o_.winograd_band_bytes > 0 ? o_.winograd_band_bytes / row_bytes : tile_rows);
    const std::int64_t bands = band_count(tile_rows, band_rows);
    std::vector<std::string> band_outputs;
    for (std::int64_t k = 0; k < bands; ++k) {
      const std::string tag = bands > 1 ? "_" + num(k) : "";
      WinogradConv wb = wc;
      wb.x_row = 2 * band_rows * k;
      wb.oh = std::min(c.oh - wb.x_row, 2 * band_rows);
      wb.v = fresh_tensor_name(g_, conv.outputs[0] + "_wino_in" + tag, taken_);
      wb.m = fresh_tensor_name(g_, conv.outputs[0] + "_wino_mm" + tag, taken_);
      wb.y = bands > 1 ? fresh_tensor_name(g_, conv.outputs[0] + "_rows" + tag, taken_) : y5;
      const WinogradExprs e = winograd_exprs(wb);
      const std::int64_t tiles = c.n * winograd_tiles(wb.oh) * winograd_tiles(c.ow);
      out_.push_back(shaped(compute(conv.name + "_wino_in" + tag, {x}, wb.v, e.input, conv), {16, tiles, c.ci}));
      Node mm = compute(conv.name + tag, {wb.v, wc.u}, wb.m, e.product, conv);
      if (k == 0) mm.name = conv.name;  // the (first band's) products, the conv's work, keep its name
      out_.push_back(mm);
      std::vector<std::string> inputs = {wb.m};
      if (has_bias) inputs.push_back(wc.bias);
      out_.push_back(shaped(compute(conv.name + "_wino_out" + tag, inputs, wb.y, e.output, conv),
                            {c.n, c.co / b, wb.oh, c.ow, b}));
      band_outputs.push_back(wb.y);
    }
    if (bands > 1) {
      // The bands' rows side by side, one copy (a band of rows of a blocked
      // tensor is no contiguous slab of it, so no Concat in place); the cost
      // model keeps it apart from a conversion to NCHW (two data movements).
      const std::string join = winograd_join(y5, band_outputs, {c.n, c.co / b, c.oh, c.ow, b}, 2 * band_rows);
      out_.push_back(shaped(compute(conv.name + "_rows", band_outputs, y5, join, conv), {c.n, c.co / b, c.oh, c.ow, b}));
      st_.count("Winograd bands", bands);
    }
    if (!g_.tensor(conv.inputs[1]).data) st_.count("conversion bytes", 4 * (c.co * c.ci * 9 + 16 * c.co * c.ci), false);
    st_.count("convs blocked");
    st_.count("convs reading a blocked input");
    st_.count("convs as Winograd F(2x2, 3x3)");
    add_conversion(conv.outputs[0], y5, {c.n, c.co, c.oh, c.ow}, conv);
    return true;
  }

  /// Appends the blocked copy [N, Ci/B, H, W, B] of the conv's NCHW input
  /// (whole blocks) and records it as that tensor's blocked form.
  std::map<std::string, Blocked>::iterator add_blocked_input(const Node &conv, const ConvGeometry &c) {
    const std::string &x = conv.inputs[0];
    const std::int64_t b = o_.block, cb = c.ci / b;
    const std::string x5 = fresh_tensor_name(g_, x + "_blk", taken_);
    const std::string expr = x5 + "(n_, cb_, h_, w_, l_) = " + blocked_read(x, "h_", "w_") + " where n_ in 0:" + num(c.n) + ", cb_ in 0:" + num(cb) + ", h_ in 0:" + num(c.h) +
                             ", w_ in 0:" + num(c.w) + ", l_ in 0:" + num(b);
    out_.push_back(compute(conv.name + "_in_blk", {x}, x5, expr, conv));
    converted_[x5] = x;
    conversion_bytes_[x5] = 8 * c.n * c.ci * c.h * c.w;
    st_.count("NCHW inputs converted to blocked");
    return blocked_.insert_or_assign(x, Blocked{x5, c.ci, {c.n, cb, c.h, c.w, b}}).first;
  }

  /// Appends the zero-padded copy of the conv's input `x` (NCHW, or blocked) and returns its name.
  std::string add_padded_input(const Node &conv, const std::string &x, bool blocked, const ConvGeometry &c) {
    std::int64_t hp = c.h + c.p[0] + c.end[0], wp = c.w + c.p[1] + c.end[1];
    std::string xp = fresh_tensor_name(g_, conv.inputs[0] + "_pad", taken_);
    std::string h = "h_" + (c.p[0] ? " - " + num(c.p[0]) : std::string()), w = "w_" + (c.p[1] ? " - " + num(c.p[1]) : std::string());
    std::string ranges = " where n_ in 0:" + num(c.n);
    std::string expr;
    std::int64_t channels = c.ci;
    std::string source = x;
    if (blocked) {
      std::int64_t cb = ceil_div(c.ci, o_.block);
      channels = cb * o_.block;
      // A blocked copy this pass made of an NCHW tensor: the padded copy
      // reads the NCHW tensor itself (one pass over the input, not two; the
      // unpadded copy stays only where something else reads it).
      const auto nchw = converted_.find(x);
      const std::string read = nchw == converted_.end() ? x + "(n_, cb_, " + h + ", " + w + ", l_)"
                                                        : blocked_read(nchw->second, h, w);
      if (nchw != converted_.end()) source = nchw->second;
      expr = xp + "(n_, cb_, h_, w_, l_) = guard(" + read + ", 0)" + ranges +
             ", cb_ in 0:" + num(cb) + ", h_ in 0:" + num(hp) + ", w_ in 0:" + num(wp) + ", l_ in 0:" + num(o_.block);
    } else {
      expr = xp + "(n_, c_, h_, w_) = guard(" + x + "(n_, c_, " + h + ", " + w + "), 0)" + ranges + ", c_ in 0:" +
             num(c.ci) + ", h_ in 0:" + num(hp) + ", w_ in 0:" + num(wp);
    }
    out_.push_back(compute(conv.name + "_pad", {source}, xp, expr, conv));
    st_.count("inputs padded");
    st_.count("conversion bytes", 4 * c.n * channels * (c.h * c.w + hp * wp), false);
    return xp;
  }

  bool rewrite_elementwise(const Node &node) {
    std::vector<std::string> inputs;
    std::optional<Shape> shape;
    for (const std::string &i : node.inputs) {
      auto it = blocked_.find(i);
      if (it == blocked_.end()) return false;
      if (shape && *shape != it->second.shape) return false;
      shape = it->second.shape;
      inputs.push_back(it->second.blocked);
    }
    const std::string &out = node.outputs[0];
    Node e = node;
    e.inputs = inputs;
    e.outputs = {fresh_tensor_name(g_, out + "_blk", taken_)};
    out_.push_back(e);
    st_.count("elementwise ops kept blocked");
    Shape s = concrete_shape(g_.tensor(out).type.shape);
    add_conversion(out, e.outputs[0], s, node);
    return true;
  }

  /// Inference BatchNormalization of a blocked tensor: a multiply-add by the
  /// per-channel scale and shift (batchnorm_params), read at channel
  /// B * cb + lane (padded lanes compute zeros).
  bool rewrite_batchnorm(const Node &node) {
    auto it = blocked_.find(node.inputs[0]);
    if (it == blocked_.end()) return false;
    const Blocked &x = it->second;
    auto ss = batchnorm_params(g_, node, taken_, names_);
    if (!ss) return false;
    const std::int64_t b = o_.block, cb = x.shape[1];
    bool padded = cb * b != x.channels;
    auto param = [&](const std::string &p) {
      std::string r = p + "(" + num(b) + " * cb_ + l_)";
      return padded ? "guard(" + r + ", 0)" : r;
    };
    std::string y5 = fresh_tensor_name(g_, node.outputs[0] + "_blk", taken_);
    std::string expr = y5 + "(n_, cb_, h_, w_, l_) = " + x.blocked + "(n_, cb_, h_, w_, l_) * " + param(ss->s) + " + " +
                       param(ss->t) + " where n_ in 0:" + num(x.shape[0]) + ", cb_ in 0:" + num(cb) +
                       ", h_ in 0:" + num(x.shape[2]) + ", w_ in 0:" + num(x.shape[3]) + ", l_ in 0:" + num(b);
    out_.push_back(ss->params);
    out_.push_back(compute(node.name, {x.blocked, ss->s, ss->t}, y5, expr, node));
    out_.back().name = node.name;  // keeps the node's name (hints, explain)
    st_.count("batch normalizations kept blocked");
    add_conversion(node.outputs[0], y5, concrete_shape(g_.tensor(node.outputs[0]).type.shape), node);
    return true;
  }

  /// Counts the conversions that something still reads (the others are dead).
  void account() {
    std::map<std::string, int> uses;
    for (const Node &n : out_)
      for (const std::string &i : n.inputs) ++uses[i];
    for (const std::string &o : g_.outputs) ++uses[o];
    for (const auto &[copy, nchw] : converted_)
      if (uses[copy]) st_.count("conversion bytes", conversion_bytes_[copy], false);
    for (std::size_t k : conversions_) {
      const std::string &t = out_[k].outputs[0];
      if (!uses[t]) continue;
      st_.count("conversions to NCHW", 1, false);
      st_.count("conversion bytes", conversion_bytes_[t], false);
    }
  }
};

}  // namespace

Graph block_conv_layout(const Graph &graph, PassStats *stats, const BlockConvOptions &options) {
  PassStats local;
  ATOLL_ASSERT(options.block >= 1, "block_conv_layout: block must be positive");
  std::vector<Node> nodes = Rewriter(graph, options, local).run();
  if (stats) stats->merge(local);
  if (local.changes == 0) return graph;
  return rebuild_graph(graph, nodes);
}

}  // namespace atl
