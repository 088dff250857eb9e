// Registry entries of the reductions ReduceSum, ReduceMean, ReduceMax,
// ReduceMin and ReduceProd (axes, keepdims, noop_with_empty_axes), and of
// ArgMax and ArgMin (axis, keepdims, select_last_index).
#include "graph/ir/ops/ops_util.h"

namespace atl::ops {
namespace {

struct ReducePlan {
  std::vector<bool> reduced;  ///< per input axis
  bool noop = false;
  bool keepdims = true;
};

ReducePlan reduce_plan(const OpContext &ctx) {
  if (has_input(ctx, 1)) fail(ctx, "'axes' must be a constant: give it as inline data or as the attribute");
  const TensorType &X = in(ctx, 0);
  // ReduceMax and ReduceMin of bools are any and all (ONNX opset 20)
  if (ctx.node.op != "ReduceMax" && ctx.node.op != "ReduceMin") require_numeric(ctx, X, "data");
  ReducePlan p;
  p.keepdims = ctx.attr_int("keepdims", 1) != 0;
  std::vector<int> axes = norm_axes(ctx, ctx.attr_ints("axes", {}), X.rank(), "axes");
  p.reduced.assign(X.shape.size(), axes.empty());
  if (axes.empty() && ctx.attr_int("noop_with_empty_axes", 0) != 0) {
    p.noop = true;
    p.reduced.assign(X.shape.size(), false);
  }
  for (int a : axes) p.reduced[a] = true;
  return p;
}

std::vector<TensorType> infer_reduce(const OpContext &ctx) {
  ReducePlan p = reduce_plan(ctx);
  const TensorType &X = in(ctx, 0);
  TensorType out{X.dtype, {}};
  for (std::size_t i = 0; i < X.shape.size(); ++i) {
    if (!p.reduced[i]) out.shape.push_back(X.shape[i]);
    else if (p.keepdims) out.shape.push_back(Dim(1));
  }
  return {out};
}

std::int64_t flops_reduce(const OpContext &ctx) {
  ReducePlan p = reduce_plan(ctx);
  if (p.noop) return 0;
  std::int64_t f = elements(in(ctx, 0).shape);
  return ctx.node.op == "ReduceMean" ? f + elements(ctx.outputs[0].shape) : f;
}

OpDefinition define_reduce(const OpContext &ctx) {
  ReducePlan p = reduce_plan(ctx);
  const TensorType &X = in(ctx, 0);
  std::vector<std::string> idx = index_names(X.rank()), lhs;
  std::int64_t count = 1;
  std::string syms;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (!p.reduced[i]) {
      lhs.push_back(idx[i]);
      continue;
    }
    if (p.keepdims) lhs.push_back("0");
    if (X.shape[i].is_symbolic()) syms += " * " + dim_text(X.shape[i]);
    else count *= X.shape[i].value;
  }
  std::string y = call("reduced", lhs), x = call("data", idx);
  if (p.noop) return {y + " = " + x, {"data", ""}, {"reduced"}};
  const std::string &op = ctx.node.op;
  std::string assign = op == "ReduceMax" ? " max=! " : op == "ReduceMin" ? " min=! " : op == "ReduceProd" ? " *=! " : " +=! ";
  std::string text = y + assign + x;
  if (op == "ReduceMean")
    text += "\n" + y + " = " + y + " / " + (syms.empty() ? std::to_string(count) : "(" + std::to_string(count) + syms + ")");
  return {text, in_names(ctx, {"data", "axes"}), {"reduced"}};
}

OpInfo reduce_op(const char *name) {
  return OpInfo{name, PatternKind::Reduction, 1, 2, 1, 1,
                {{"axes", AttrKind::Ints}, {"keepdims", AttrKind::Int}, {"noop_with_empty_axes", AttrKind::Int}},
                {{1, "axes"}}, infer_reduce, flops_reduce, define_reduce};
}

// ---- ArgMax, ArgMin ---------------------------------------------------------

int arg_axis(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  require_numeric(ctx, X, "data");
  if (X.rank() == 0) fail(ctx, "data must have rank at least 1");
  std::int64_t last = ctx.attr_int("select_last_index", 0);
  if (last != 0 && last != 1) fail(ctx, "select_last_index must be 0 or 1, got " + std::to_string(last));
  return norm_axis(ctx, ctx.attr_int("axis", 0), X.rank(), "axis");
}

std::vector<TensorType> infer_arg(const OpContext &ctx) {
  int axis = arg_axis(ctx);
  const TensorType &X = in(ctx, 0);
  TensorType out{DType::I64, {}};
  for (int i = 0; i < X.rank(); ++i) {
    if (i != axis) out.shape.push_back(X.shape[i]);
    else if (ctx.attr_int("keepdims", 1) != 0) out.shape.push_back(Dim(1));
  }
  return {out};
}

/// A comparison per element for the extreme, another for the index.
std::int64_t flops_arg(const OpContext &ctx) { return 2 * elements(in(ctx, 0).shape); }

/// The extreme along the axis into a temporary, then the first index (the
/// last with select_last_index) whose value equals it:
///   m(i0) max=! data(i0, i1)
///   reduced(i0, 0) min=! data(i0, i1) == m(i0) || data(i0, i1) != data(i0, i1) ? i1 : 4
/// A NaN counts as the extreme (numpy's argmax returns the first NaN); the
/// other branch is the index that loses every comparison, so the reduction
/// stays in [0, size).
OpDefinition define_arg(const OpContext &ctx) {
  int axis = arg_axis(ctx);
  const TensorType &X = in(ctx, 0);
  bool last = ctx.attr_int("select_last_index", 0) != 0, keep = ctx.attr_int("keepdims", 1) != 0;
  std::vector<std::string> idx = index_names(X.rank()), outer, lhs;
  for (int i = 0; i < X.rank(); ++i) {
    if (i != axis) outer.push_back(idx[i]);
    if (i != axis) lhs.push_back(idx[i]);
    else if (keep) lhs.push_back("0");
  }
  std::string x = call("data", idx), m = call("extreme", outer);
  std::string text = m + (ctx.node.op == "ArgMax" ? " max=! " : " min=! ") + x + "\n";
  std::string other = last ? "0" : "(" + dim_text(X.shape[axis]) + " - 1)";
  text += call("reduced", lhs) + (last ? " max=! " : " min=! ") + "(" + x + " == " + m + " || " + x + " != " + x +
          " ? " + idx[axis] + " : " + other + ")";
  return {text, {"data"}, {"reduced"}};
}

OpInfo arg_op(const char *name) {
  return OpInfo{name, PatternKind::Reduction, 1, 1, 1, 1,
                {{"axis", AttrKind::Int}, {"keepdims", AttrKind::Int}, {"select_last_index", AttrKind::Int}},
                {}, infer_arg, flops_arg, define_arg};
}

}  // namespace

std::vector<OpInfo> reduce_ops() {
  return {reduce_op("ReduceSum"), reduce_op("ReduceMean"), reduce_op("ReduceMax"), reduce_op("ReduceMin"),
          reduce_op("ReduceProd"), arg_op("ArgMax"), arg_op("ArgMin")};
}

}  // namespace atl::ops
