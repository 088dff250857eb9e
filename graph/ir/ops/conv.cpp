// Registry entries of Conv and ConvTranspose (1-3 spatial dims, groups,
// auto_pad, pads, strides, dilations, bias; output_padding/output_shape).
#include "graph/ir/ops/ops_util.h"

namespace atl::ops {
namespace {

const std::vector<std::string> &spatial_names(std::size_t k) {
  static const std::vector<std::vector<std::string>> names = {{}, {"w"}, {"h", "w"}, {"d", "h", "w"}};
  return names[k];
}

std::vector<AttrSpec> conv_attrs(bool transpose) {
  std::vector<AttrSpec> a = {{"auto_pad", AttrKind::String}, {"dilations", AttrKind::Ints},
                             {"group", AttrKind::Int},        {"kernel_shape", AttrKind::Ints},
                             {"pads", AttrKind::Ints},        {"strides", AttrKind::Ints}};
  if (transpose) {
    a.push_back({"output_padding", AttrKind::Ints});
    a.push_back({"output_shape", AttrKind::Ints});
  }
  return a;
}

/// Everything Conv and ConvTranspose derive from their inputs and attributes.
struct ConvPlan {
  Dim n;
  std::int64_t c = 0, m = 0, group = 1, cg = 0, mg = 0;  ///< channels in/out, per group
  Window win;                                             ///< Conv: over X; ConvTranspose: over Y
  bool bias = false;
  DType dtype = DType::F32;
};

ConvPlan check_common(const OpContext &ctx, bool transpose) {
  const TensorType &X = in(ctx, 0), &W = in(ctx, 1);
  require_float(ctx, X, "X");
  require_same_dtype(ctx, X, "X", W, "W");
  if (X.rank() < 3 || X.rank() > 5)
    fail(ctx, "X must be N x C x D1 [x D2 [x D3]] (1 to 3 spatial dims), got " + X.str());
  if (W.rank() != X.rank()) fail(ctx, "W " + W.str() + " must have the rank of X " + X.str());
  ConvPlan p;
  p.dtype = X.dtype;
  p.n = X.shape[0];
  p.c = concrete(ctx, X.shape[1], "the channel count");
  p.group = ctx.attr_int("group", 1);
  if (p.group < 1) fail(ctx, "group must be positive, got " + std::to_string(p.group));
  for (int i = 0; i < W.rank(); ++i) concrete(ctx, W.shape[i], "the weight");
  if (!transpose) {
    p.m = W.shape[0].value;
    p.cg = W.shape[1].value;
    if (p.c != p.cg * p.group)
      fail(ctx, "input has " + std::to_string(p.c) + " channels but weight expects " + std::to_string(p.cg) +
                    " x group " + std::to_string(p.group));
    if (p.m % p.group)
      fail(ctx, "weight has " + std::to_string(p.m) + " output channels, not a multiple of group " +
                    std::to_string(p.group));
    p.mg = p.m / p.group;
  } else {
    if (W.shape[0].value != p.c)
      fail(ctx, "input has " + std::to_string(p.c) + " channels but weight " + W.str() + " expects " +
                    std::to_string(W.shape[0].value));
    if (p.c % p.group)
      fail(ctx, "input channels " + std::to_string(p.c) + " are not a multiple of group " + std::to_string(p.group));
    p.cg = p.c / p.group;
    p.mg = W.shape[1].value;
    p.m = p.mg * p.group;
  }
  if (has_input(ctx, 2)) {
    const TensorType &B = in(ctx, 2);
    require_same_dtype(ctx, X, "X", B, "B");
    if (B.rank() != 1 || B.shape[0] != Dim(p.m))
      fail(ctx, "bias B " + B.str() + " must have shape [" + std::to_string(p.m) + "] (one per output channel)");
    p.bias = true;
  }
  return p;
}

std::vector<std::int64_t> weight_kernel(const OpContext &ctx) {
  const TensorType &W = in(ctx, 1);
  std::vector<std::int64_t> k;
  for (int i = 2; i < W.rank(); ++i) k.push_back(W.shape[i].value);
  return kernel_shape(ctx, k.size(), k);
}

ConvPlan conv_plan(const OpContext &ctx) {
  ConvPlan p = check_common(ctx, false);
  p.win = resolve_window(ctx, in(ctx, 0), weight_kernel(ctx), false);
  return p;
}

ConvPlan conv_transpose_plan(const OpContext &ctx) {
  ConvPlan p = check_common(ctx, true);
  const TensorType &X = in(ctx, 0);
  std::vector<std::int64_t> kernel = weight_kernel(ctx);
  std::size_t k = kernel.size();
  Window &w = p.win;
  w.kernel = kernel;
  w.strides = ctx.attr_ints("strides", std::vector<std::int64_t>(k, 1));
  w.dilations = ctx.attr_ints("dilations", std::vector<std::int64_t>(k, 1));
  std::vector<std::int64_t> opad = ctx.attr_ints("output_padding", std::vector<std::int64_t>(k, 0));
  std::vector<std::int64_t> pads = ctx.attr_ints("pads", std::vector<std::int64_t>(2 * k, 0));
  std::vector<std::int64_t> oshape = ctx.attr_ints("output_shape", {});
  std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail(ctx, "auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, not '" + auto_pad + "'");
  if (w.strides.size() != k || w.dilations.size() != k || opad.size() != k || pads.size() != 2 * k)
    fail(ctx, "strides, dilations and output_padding need " + std::to_string(k) + " values and pads " +
                  std::to_string(2 * k));
  if (!oshape.empty() && oshape.size() != k && oshape.size() != k + 2)
    fail(ctx, "output_shape needs " + std::to_string(k) + " spatial sizes (or the full rank " + std::to_string(k + 2) +
                  "), got " + std::to_string(oshape.size()));
  if (oshape.size() == k + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);
  if (ctx.attr("pads") && (auto_pad != "NOTSET" || !oshape.empty()))
    fail(ctx, "'pads' cannot be used together with auto_pad or output_shape");
  for (std::size_t i = 0; i < k; ++i) {
    std::int64_t s = w.strides[i], d = w.dilations[i];
    if (s < 1 || d < 1) fail(ctx, "strides and dilations must be positive");
    if (opad[i] < 0 || (opad[i] >= s && opad[i] >= d))
      fail(ctx, "output_padding " + std::to_string(opad[i]) + " must be non-negative and less than the stride or dilation");
    if (pads[i] < 0 || pads[k + i] < 0) fail(ctx, "pads must not be negative");
    std::int64_t in_sz = concrete(ctx, X.shape[2 + i], "the output size of ConvTranspose");
    std::int64_t full = s * (in_sz - 1) + opad[i] + (kernel[i] - 1) * d + 1;
    std::int64_t pb = pads[i], pe = pads[k + i], out = 0;
    bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!oshape.empty() || same) {
      out = !oshape.empty() ? oshape[i] : in_sz * s;
      // ONNX's rule with floor division; a negative total (an output larger
      // than the full result) gives negative pads: positions nothing reaches.
      std::int64_t total = full - out;
      std::int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pb = auto_pad == "SAME_UPPER" ? half : total - half;
      pe = total - pb;
    } else {
      if (auto_pad == "VALID") pb = pe = 0;
      out = full - pb - pe;
    }
    if (out < 1) fail(ctx, "pads leave no output on spatial axis " + std::to_string(i));
    w.in.push_back(in_sz);
    w.out.push_back(out);
    w.pad_begin.push_back(pb);
    w.pad_end.push_back(pe);
  }
  return p;
}

std::vector<TensorType> infer_conv_with(const ConvPlan &p) {
  TensorType out{p.dtype, {p.n, Dim(p.m)}};
  for (std::int64_t o : p.win.out) out.shape.push_back(o);
  return {out};
}

std::vector<TensorType> infer_conv(const OpContext &ctx) { return infer_conv_with(conv_plan(ctx)); }
std::vector<TensorType> infer_conv_transpose(const OpContext &ctx) { return infer_conv_with(conv_transpose_plan(ctx)); }

std::int64_t prod(const std::vector<std::int64_t> &v) {
  std::int64_t p = 1;
  for (std::int64_t x : v) p *= x;
  return p;
}

std::int64_t flops_conv(const OpContext &ctx) {
  ConvPlan p = conv_plan(ctx);
  std::int64_t outs = elements(ctx.outputs[0].shape);
  return 2 * outs * p.cg * prod(p.win.kernel) + (p.bias ? outs : 0);
}

std::int64_t flops_conv_transpose(const OpContext &ctx) {
  ConvPlan p = conv_transpose_plan(ctx);
  std::int64_t inputs = elements(in(ctx, 0).shape);
  return 2 * inputs * p.mg * prod(p.win.kernel) + (p.bias ? elements(ctx.outputs[0].shape) : 0);
}

/// The input channel read for output channel m and reduction index c.
std::string in_channel(const ConvPlan &p) {
  if (p.group == 1) return "c";
  std::string g = p.mg == 1 ? "m" : "floor(m / " + std::to_string(p.mg) + ")";
  return g + (p.cg == 1 ? "" : " * " + std::to_string(p.cg)) + " + c";
}

/// "where c in 0:CG, kh in 0:KH, ..." and the Y / bias statements' common parts.
struct Loops {
  std::vector<std::string> y, kidx;
  std::string where;
};

Loops loops(const ConvPlan &p) {
  Loops l;
  const auto &sp = spatial_names(p.win.kernel.size());
  l.y = {"n", "m"};
  std::vector<std::pair<std::string, std::int64_t>> ranges = {{"c", p.cg}};
  for (std::size_t i = 0; i < sp.size(); ++i) {
    l.y.push_back(sp[i]);
    l.kidx.push_back("k" + sp[i]);
    ranges.push_back({l.kidx.back(), p.win.kernel[i]});
  }
  l.where = " where " + where_clause(ranges);
  return l;
}

std::string bias_statement(const ConvPlan &p, const Loops &l) {
  return p.bias ? "\n" + call("Y", l.y) + " += B(m)" : "";
}

/// `X(n, in_ch, S * oh + D * kh - P, ...) * W(w_row, c, kh, ...)`, the
/// input read guarded where the window reaches into the padding.
std::string conv_product(const ConvPlan &p, const Loops &l, const std::string &in_ch, const std::string &w_row) {
  std::vector<std::string> xs = {"n", in_ch}, ws = {w_row, "c"};
  for (std::size_t i = 0; i < l.kidx.size(); ++i) {
    xs.push_back(Affine().add(l.y[2 + i], p.win.strides[i]).add(l.kidx[i], p.win.dilations[i]).plus(-p.win.pad_begin[i]).str());
    ws.push_back(l.kidx[i]);
  }
  std::string x = call("X", xs);
  if (p.win.reads_outside()) x = "guard(" + x + ", 0)";
  return x + " * " + call("W", ws);
}

/// A grouped Conv with several output channels per group: the group is a
/// loop of its own, so that every subscript is affine without a floor
/// (`Y(n, MG * g + m, ...) +=! X(n, CG * g + c, ...) * W(MG * g + m, c, ...)`),
/// and the CPU tilings see a batch of small convolutions (ShuffleNet's
/// 1x1 group convolutions) rather than a division in the input's channel.
OpDefinition define_grouped_conv(const ConvPlan &p, const OpContext &ctx) {
  Loops l = loops(p);
  const std::string mg = std::to_string(p.mg);
  const std::string out_ch = mg + " * g + m";
  std::vector<std::string> ys = l.y;
  ys[1] = out_ch;
  const std::string groups = "g in 0:" + std::to_string(p.group) + ", m in 0:" + mg;
  std::string text = call("Y", ys) + " +=! " + conv_product(p, l, std::to_string(p.cg) + " * g + c", out_ch) + " where " +
                     groups + ", " + l.where.substr(7);
  if (p.bias) text += "\n" + call("Y", ys) + " += B(" + out_ch + ") where " + groups;
  return {text, in_names(ctx, {"X", "W", "B"}), {"Y"}};
}

OpDefinition define_conv(const OpContext &ctx) {
  ConvPlan p = conv_plan(ctx);
  // (Depthwise ones, one input channel per group, stay window reductions.)
  if (p.group > 1 && p.mg > 1 && p.cg > 1) return define_grouped_conv(p, ctx);
  Loops l = loops(p);
  std::string text = call("Y", l.y) + " +=! " + conv_product(p, l, in_channel(p), "m") + l.where + bias_statement(p, l);
  return {text, in_names(ctx, {"X", "W", "B"}), {"Y"}};
}

OpDefinition define_conv_transpose(const OpContext &ctx) {
  ConvPlan p = conv_transpose_plan(ctx);
  Loops l = loops(p);
  std::string ch = p.group == 1 ? "c" : "floor(m / " + std::to_string(p.mg) + ") * " + std::to_string(p.cg) + " + c";
  std::vector<std::string> xs = {"n", ch}, ws = {ch, p.group == 1 ? "m" : "m % " + std::to_string(p.mg)};
  std::string cond;
  bool outside = false;
  for (std::size_t i = 0; i < l.kidx.size(); ++i) {
    std::int64_t s = p.win.strides[i], d = p.win.dilations[i], pb = p.win.pad_begin[i];
    std::string num_e = Affine(l.y[2 + i]).add(l.kidx[i], -d).plus(pb).str();
    if (s == 1) {
      xs.push_back(num_e);
    } else {
      xs.push_back("floor((" + num_e + ") / " + std::to_string(s) + ")");
      cond += std::string(cond.empty() ? "" : " && ") + "(" + num_e + ") % " + std::to_string(s) + " == 0";
    }
    // the input index ranges over [floor((pb - (K-1)d)/s), floor((OUT-1+pb)/s)]
    if (pb - (p.win.kernel[i] - 1) * d < 0 || (p.win.out[i] - 1 + pb) / s >= p.win.in[i]) outside = true;
    ws.push_back(l.kidx[i]);
  }
  std::string x = call("X", xs);
  if (outside) x = "guard(" + x + ", 0)";
  std::string term = x + " * " + call("W", ws);
  if (!cond.empty()) term = cond + " ? " + term + " : 0";
  std::string text = call("Y", l.y) + " +=! " + term + l.where + bias_statement(p, l);
  return {text, in_names(ctx, {"X", "W", "B"}), {"Y"}};
}

}  // namespace

std::vector<OpInfo> conv_ops() {
  return {
      OpInfo{"Conv", PatternKind::OutFusable, 2, 3, 1, 1, conv_attrs(false), {}, infer_conv, flops_conv, define_conv},
      OpInfo{"ConvTranspose", PatternKind::OutFusable, 2, 3, 1, 1, conv_attrs(true), {}, infer_conv_transpose,
             flops_conv_transpose, define_conv_transpose},
  };
}

}  // namespace atl::ops
