// Registry entries of the normalizations: BatchNormalization (inference),
// LayerNormalization, RMSNormalization, InstanceNormalization, Softmax,
// LogSoftmax, Hardmax, LpNormalization and LRN.
#include "graph/ir/ops/ops_util.h"

namespace atl::ops {
namespace {

/// Number of elements of dims [from, to) as Compute text ("768", "(1 * S)").
std::string count_text(const SymShape &s, int from, int to) {
  std::int64_t c = 1;
  std::string syms;
  for (int i = from; i < to; ++i) {
    if (s[i].is_symbolic()) syms += " * " + dim_text(s[i]);
    else c *= s[i].value;
  }
  return syms.empty() ? std::to_string(c) : "(" + std::to_string(c) + syms + ")";
}

std::vector<std::string> pick(const std::vector<std::string> &v, int from, int to) {
  return std::vector<std::string>(v.begin() + from, v.begin() + to);
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void single_output(const OpContext &ctx) {
  if (ctx.node.outputs.size() > 1) fail(ctx, "has exactly one output here");
}

// ---- BatchNormalization ---------------------------------------------------

std::vector<TensorType> infer_batchnorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "X");
  require_rank_at_least(ctx, X, 2, "X");
  if (ctx.attr_int("training_mode", 0) != 0) fail(ctx, "training_mode is not supported (inference form only)");
  if (ctx.node.outputs.size() > 1)
    fail(ctx, "running_mean and running_var outputs exist only in training mode, which is not supported");
  const char *names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i) {
    const TensorType &t = in(ctx, i);
    require_float(ctx, t, names[i]);
    if (t.rank() != 1 || t.shape[0] != X.shape[1])
      fail(ctx, std::string(names[i]) + " " + t.str() + " must have shape [" + X.shape[1].str() + "] (one per channel)");
  }
  return {X};
}

std::int64_t flops_batchnorm(const OpContext &ctx) { return 6 * elements(ctx.outputs[0].shape); }

OpDefinition define_batchnorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  std::vector<std::string> idx = index_names(X.rank());
  std::string c = idx[1];
  std::string text = call("Y", idx) + " = (" + call("X", idx) + " - input_mean(" + c + ")) / sqrt(input_var(" + c +
                     ") + " + num(ctx.attr_float("epsilon", 1e-5)) + ") * scale(" + c + ") + B(" + c + ")";
  return {text, {"X", "scale", "B", "input_mean", "input_var"}, {"Y"}};
}

// ---- LayerNormalization and InstanceNormalization -------------------------

/// Mean and inverse standard deviation over dims [axis, rank) of `x`, into
/// temporaries mu(outer) and rstd(outer).
std::string moments(const std::string &x, const SymShape &shape, int axis, double eps) {
  std::vector<std::string> idx = index_names(static_cast<int>(shape.size()));
  std::string mu = call("mu", pick(idx, 0, axis)), s2 = call("sigma2", pick(idx, 0, axis)),
              rstd = call("rstd", pick(idx, 0, axis)), X = call(x, idx);
  std::string d = count_text(shape, axis, static_cast<int>(shape.size()));
  return mu + " +=! " + X + "\n" + mu + " = " + mu + " / " + d + "\n" + s2 + " +=! (" + X + " - " + mu + ") * (" +
         X + " - " + mu + ")\n" + rstd + " = 1 / sqrt(" + s2 + " / " + d + " + " + num(eps) + ")\n";
}

int ln_axis(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  return norm_axis(ctx, ctx.attr_int("axis", -1), X.rank(), "axis");
}

std::vector<TensorType> infer_layernorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "X");
  require_rank_at_least(ctx, X, 1, "X");
  int axis = ln_axis(ctx);
  SymShape norm(X.shape.begin() + axis, X.shape.end());
  for (int i = 1; i < 3; ++i) {
    if (!has_input(ctx, i)) continue;
    const TensorType &t = in(ctx, i);
    const char *what = i == 1 ? "Scale" : "B";
    require_float(ctx, t, what);
    if (!broadcasts_to(t.shape, norm))
      fail(ctx, std::string(what) + " " + t.str() + " does not broadcast to the normalized shape " +
                    sym_shape_to_string(norm) + " (axis " + std::to_string(axis) + ")");
  }
  std::int64_t stash = ctx.attr_int("stash_type", 1);
  if (stash != 1) fail(ctx, "stash_type must be 1 (f32), got " + std::to_string(stash));
  std::vector<TensorType> out = {X};
  TensorType stat{DType::F32, X.shape};
  for (int i = axis; i < X.rank(); ++i) stat.shape[i] = Dim(1);
  for (std::size_t i = 1; i < ctx.node.outputs.size(); ++i) out.push_back(stat);
  return out;
}

std::int64_t flops_layernorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  int axis = ln_axis(ctx);
  std::int64_t e = elements(X.shape), rows = product(X.shape, 0, axis);
  return e * (7 + (has_input(ctx, 2) ? 1 : 0)) + rows * 5;
}

OpDefinition define_layernorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  int axis = ln_axis(ctx), r = X.rank();
  std::vector<std::string> idx = index_names(r), outer = pick(idx, 0, axis);
  SymShape norm(X.shape.begin() + axis, X.shape.end());
  std::string text = moments("X", X.shape, axis, ctx.attr_float("epsilon", 1e-5));
  std::string y = "(" + call("X", idx) + " - " + call("mu", outer) + ") * " + call("rstd", outer) + " * " +
                  call("Scale", broadcast_subs(in(ctx, 1).shape, norm, pick(idx, axis, r)));
  if (has_input(ctx, 2)) y += " + " + call("B", broadcast_subs(in(ctx, 2).shape, norm, pick(idx, axis, r)));
  text += call("Y", idx) + " = " + y;
  std::vector<std::string> stat = outer;
  for (int i = axis; i < r; ++i) stat.push_back("0");
  if (has_output(ctx, 1)) text += "\n" + call("Mean", stat) + " = " + call("mu", outer);
  if (has_output(ctx, 2)) text += "\n" + call("InvStdDev", stat) + " = " + call("rstd", outer);
  return {text, in_names(ctx, {"X", "Scale", "B"}), out_names(ctx, {"Y", "Mean", "InvStdDev"})};
}

// ---- RMSNormalization (opset 23) -------------------------------------------

std::vector<TensorType> infer_rmsnorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "X");
  require_rank_at_least(ctx, X, 1, "X");
  single_output(ctx);
  int axis = ln_axis(ctx);
  SymShape norm(X.shape.begin() + axis, X.shape.end());
  const TensorType &scale = in(ctx, 1);
  require_float(ctx, scale, "scale");
  if (!broadcasts_to(scale.shape, norm))
    fail(ctx, "scale " + scale.str() + " does not broadcast to the normalized shape " + sym_shape_to_string(norm) +
                  " (axis " + std::to_string(axis) + ")");
  std::int64_t stash = ctx.attr_int("stash_type", 1);
  if (stash != 1) fail(ctx, "stash_type must be 1 (f32), got " + std::to_string(stash));
  return {X};
}

std::int64_t flops_rmsnorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  return elements(X.shape) * 4 + product(X.shape, 0, ln_axis(ctx)) * 4;
}

/// The mean of squares over dims [axis, rank) into ms(outer), its inverse
/// root into rstd(outer), then Y = X * rstd * scale.
OpDefinition define_rmsnorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  int axis = ln_axis(ctx), r = X.rank();
  std::vector<std::string> idx = index_names(r), outer = pick(idx, 0, axis);
  SymShape norm(X.shape.begin() + axis, X.shape.end());
  std::string x = call("X", idx), ms = call("ms", outer), rstd = call("rstd", outer);
  std::string text = ms + " +=! " + x + " * " + x + "\n" + rstd + " = 1 / sqrt(" + ms + " / " +
                     count_text(X.shape, axis, r) + " + " + num(ctx.attr_float("epsilon", 1e-5)) + ")\n" +
                     call("Y", idx) + " = " + x + " * " + rstd + " * " +
                     call("scale", broadcast_subs(in(ctx, 1).shape, norm, pick(idx, axis, r)));
  return {text, {"X", "scale"}, {"Y"}};
}

std::vector<TensorType> infer_instancenorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "input");
  require_rank_at_least(ctx, X, 3, "input");
  single_output(ctx);
  for (int i = 1; i < 3; ++i) {
    const TensorType &t = in(ctx, i);
    const char *what = i == 1 ? "scale" : "B";
    require_float(ctx, t, what);
    if (t.rank() != 1 || t.shape[0] != X.shape[1])
      fail(ctx, std::string(what) + " " + t.str() + " must have shape [" + X.shape[1].str() + "] (one per channel)");
  }
  return {X};
}

std::int64_t flops_instancenorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  return elements(X.shape) * 8 + product(X.shape, 0, 2) * 5;
}

OpDefinition define_instancenorm(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  std::vector<std::string> idx = index_names(X.rank()), outer = pick(idx, 0, 2);
  std::string text = moments("input", X.shape, 2, ctx.attr_float("epsilon", 1e-5));
  text += call("output", idx) + " = (" + call("input", idx) + " - " + call("mu", outer) + ") * " +
          call("rstd", outer) + " * scale(" + idx[1] + ") + B(" + idx[1] + ")";
  return {text, {"input", "scale", "B"}, {"output"}};
}

// ---- Softmax and LogSoftmax -----------------------------------------------

int softmax_axis(const OpContext &ctx) { return norm_axis(ctx, ctx.attr_int("axis", -1), in(ctx, 0).rank(), "axis"); }

std::vector<TensorType> infer_softmax(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "input");
  require_rank_at_least(ctx, X, 1, "input");
  single_output(ctx);
  softmax_axis(ctx);
  return {X};
}

std::int64_t flops_softmax(const OpContext &ctx) {
  std::int64_t e = elements(ctx.outputs[0].shape);
  if (ctx.node.op == "Softmax") return 5 * e;
  return 6 * e + e / ctx.outputs[0].shape[softmax_axis(ctx)].value;
}

OpDefinition define_softmax(const OpContext &ctx) {
  int axis = softmax_axis(ctx), r = in(ctx, 0).rank();
  std::vector<std::string> idx = index_names(r);
  std::vector<std::string> row = concat(pick(idx, 0, axis), pick(idx, axis + 1, r));
  std::string x = call("input", idx), y = call("output", idx), mx = call("mx", row), sm = call("sm", row);
  std::string text = mx + " max=! " + x + "\n";
  if (ctx.node.op == "Softmax")
    text += y + " = exp(" + x + " - " + mx + ")\n" + sm + " +=! " + y + "\n" + y + " = " + y + " / " + sm;
  else
    text += sm + " +=! exp(" + x + " - " + mx + ")\n" + y + " = " + x + " - " + mx + " - log(" + sm + ")";
  // A NaN in a row makes its sum, and so every output of the row, NaN,
  // whatever the maximum is.
  return {text, {"input"}, {"output"}, {"mx"}};
}

// ---- Hardmax (opset 13: one axis) -----------------------------------------------

std::int64_t flops_hardmax(const OpContext &ctx) { return 3 * elements(ctx.outputs[0].shape); }

/// 1 at the first maximum along the axis (a NaN counts as the maximum, as
/// numpy's argmax takes the first NaN), 0 elsewhere:
///   mx(i0) max=! input(i0, i1)
///   first(i0) min=! (input(i0, i1) == mx(i0) || input(i0, i1) != input(i0, i1) ? i1 : (5 - 1))
///   output(i0, i1) = i1 == first(i0) ? 1 : 0
OpDefinition define_hardmax(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  int axis = softmax_axis(ctx), r = X.rank();
  std::vector<std::string> idx = index_names(r);
  std::vector<std::string> row = concat(pick(idx, 0, axis), pick(idx, axis + 1, r));
  std::string x = call("input", idx), mx = call("mx", row), first = call("first", row);
  std::string text = mx + " max=! " + x + "\n" + first + " min=! (" + x + " == " + mx + " || " + x + " != " + x +
                     " ? " + idx[axis] + " : (" + dim_text(X.shape[axis]) + " - 1))\n";
  text += call("output", idx) + " = " + idx[axis] + " == " + first + " ? 1 : 0";
  return {text, {"input"}, {"output"}};
}

// ---- LpNormalization ------------------------------------------------------------

std::int64_t lp_order(const OpContext &ctx) {
  std::int64_t p = ctx.attr_int("p", 2);
  if (p != 1 && p != 2) fail(ctx, "p must be 1 or 2, got " + std::to_string(p));
  return p;
}

std::vector<TensorType> infer_lpnorm(const OpContext &ctx) {
  std::vector<TensorType> out = infer_softmax(ctx);
  lp_order(ctx);
  return out;
}

std::int64_t flops_lpnorm(const OpContext &ctx) { return 3 * elements(ctx.outputs[0].shape); }

/// x divided by the L1 or L2 norm along the axis; a row whose norm is 0
/// gives 0 (ONNX's reference takes 0 / 0 as 0):
///   nrm(i0) +=! input(i0, i1) * input(i0, i1)
///   nrm(i0) = sqrt(nrm(i0))
///   output(i0, i1) = nrm(i0) == 0 ? 0 : input(i0, i1) / nrm(i0)
OpDefinition define_lpnorm(const OpContext &ctx) {
  int axis = softmax_axis(ctx), r = in(ctx, 0).rank();
  std::int64_t p = lp_order(ctx);
  std::vector<std::string> idx = index_names(r);
  std::vector<std::string> row = concat(pick(idx, 0, axis), pick(idx, axis + 1, r));
  std::string x = call("input", idx), nrm = call("nrm", row);
  std::string text = nrm + " +=! " + (p == 1 ? "abs(" + x + ")" : x + " * " + x) + "\n";
  if (p == 2) text += nrm + " = sqrt(" + nrm + ")\n";
  text += call("output", idx) + " = " + nrm + " == 0 ? 0 : " + x + " / " + nrm;
  return {text, {"input"}, {"output"}};
}

// ---- LRN --------------------------------------------------------------------

std::vector<TensorType> infer_lrn(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "X");
  require_rank_at_least(ctx, X, 3, "X");
  single_output(ctx);
  if (!ctx.attr("size")) fail(ctx, "needs the attribute size");
  if (ctx.attr_int("size", 0) < 1) fail(ctx, "size must be positive");
  return {X};
}

std::int64_t flops_lrn(const OpContext &ctx) {
  return elements(ctx.outputs[0].shape) * (2 * ctx.attr_int("size", 1) + 4);
}

/// ONNX's LRN: each element divided by (bias + alpha / size * the sum of
/// squares over `size` channels around it, fewer at the edges) ^ beta; the
/// window reaches floor((size - 1) / 2) channels below, the rest above.
OpDefinition define_lrn(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  std::int64_t size = ctx.attr_int("size", 1), below = (size - 1) / 2;
  std::vector<std::string> idx = index_names(X.rank());
  std::vector<std::string> shifted = idx;
  shifted[1] = idx[1] + " + kc - " + std::to_string(below);
  std::string x = call("X", shifted);
  std::string text = call("sq", idx) + " +=! guard(" + x + ", 0) * guard(" + x + ", 0) where kc in 0:" +
                     std::to_string(size) + ", " + idx[1] + " in 0:" + dim_text(X.shape[1]) + "\n";
  text += call("Y", idx) + " = " + call("X", idx) + " / pow(" + num(ctx.attr_float("bias", 1.0)) + " + " +
          num(ctx.attr_float("alpha", 1e-4) / static_cast<double>(size)) + " * " + call("sq", idx) + ", " +
          num(ctx.attr_float("beta", 0.75)) + ")";
  return {text, {"X"}, {"Y"}};
}

}  // namespace

std::vector<OpInfo> normalization_ops() {
  return {
      OpInfo{"BatchNormalization", PatternKind::Broadcast, 5, 5, 1, 3,
             {{"epsilon", AttrKind::Float}, {"momentum", AttrKind::Float}, {"training_mode", AttrKind::Int}},
             {}, infer_batchnorm, flops_batchnorm, define_batchnorm},
      OpInfo{"LayerNormalization", PatternKind::Reduction, 2, 3, 1, 3,
             {{"axis", AttrKind::Int}, {"epsilon", AttrKind::Float}, {"stash_type", AttrKind::Int}},
             {}, infer_layernorm, flops_layernorm, define_layernorm},
      OpInfo{"RMSNormalization", PatternKind::Reduction, 2, 2, 1, 1,
             {{"axis", AttrKind::Int}, {"epsilon", AttrKind::Float}, {"stash_type", AttrKind::Int}},
             {}, infer_rmsnorm, flops_rmsnorm, define_rmsnorm},
      OpInfo{"InstanceNormalization", PatternKind::Reduction, 3, 3, 1, 1, {{"epsilon", AttrKind::Float}}, {},
             infer_instancenorm, flops_instancenorm, define_instancenorm},
      OpInfo{"Softmax", PatternKind::Reduction, 1, 1, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_softmax,
             flops_softmax, define_softmax},
      OpInfo{"LogSoftmax", PatternKind::Reduction, 1, 1, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_softmax,
             flops_softmax, define_softmax},
      OpInfo{"Hardmax", PatternKind::Reduction, 1, 1, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_softmax,
             flops_hardmax, define_hardmax},
      OpInfo{"LpNormalization", PatternKind::Reduction, 1, 1, 1, 1, {{"axis", AttrKind::Int}, {"p", AttrKind::Int}}, {},
             infer_lpnorm, flops_lpnorm, define_lpnorm},
      OpInfo{"LRN", PatternKind::Reduction, 1, 1, 1, 1,
             {{"alpha", AttrKind::Float}, {"beta", AttrKind::Float}, {"bias", AttrKind::Float}, {"size", AttrKind::Int}},
             {}, infer_lrn, flops_lrn, define_lrn},
  };
}

}  // namespace atl::ops
