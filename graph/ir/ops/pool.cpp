// Registry entries of the pools: MaxPool, AveragePool (ceil_mode, dilations,
// count_include_pad), LpPool (p), GlobalAveragePool and GlobalMaxPool.
#include "graph/ir/ops/ops_util.h"

namespace atl::ops {
namespace {

std::vector<AttrSpec> window_attrs() {
  return {{"auto_pad", AttrKind::String}, {"ceil_mode", AttrKind::Int}, {"dilations", AttrKind::Ints},
          {"kernel_shape", AttrKind::Ints}, {"pads", AttrKind::Ints}, {"strides", AttrKind::Ints}};
}

std::vector<AttrSpec> pool_attrs(bool max) {
  std::vector<AttrSpec> a = window_attrs();
  a.push_back(max ? AttrSpec{"storage_order", AttrKind::Int} : AttrSpec{"count_include_pad", AttrKind::Int});
  return a;
}

std::vector<AttrSpec> lp_pool_attrs() {
  std::vector<AttrSpec> a = window_attrs();
  a.push_back({"p", AttrKind::Int});
  return a;
}

const TensorType &pooled_input(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  if (ctx.node.op == "MaxPool" || ctx.node.op == "GlobalMaxPool") require_numeric(ctx, X, "X");
  else require_float(ctx, X, "X");
  if (X.rank() < 3) fail(ctx, "X must be N x C x D1 [x D2 ...], got " + X.str());
  if (has_output(ctx, 1))
    fail(ctx, "the optional Indices output is not supported; request only Y");
  if (ctx.node.outputs.size() > 1) fail(ctx, "has only the output Y here");
  return X;
}

Window pool_window(const OpContext &ctx) {
  const TensorType &X = pooled_input(ctx);
  std::vector<std::int64_t> kernel = kernel_shape(ctx, X.shape.size() - 2, {});
  if (ctx.node.op == "MaxPool" && ctx.attr_int("storage_order", 0) != 0 && ctx.attr_int("storage_order", 0) != 1)
    fail(ctx, "storage_order must be 0 or 1");
  if (ctx.node.op == "LpPool" && ctx.attr_int("p", 2) < 1)
    fail(ctx, "p must be a positive integer, got " + std::to_string(ctx.attr_int("p", 2)));
  Window w = resolve_window(ctx, X, kernel, true);
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    std::int64_t extent = (kernel[i] - 1) * w.dilations[i] + 1;
    if (w.pad_begin[i] >= extent || w.pad_end[i] >= extent)
      fail(ctx, "pads on spatial axis " + std::to_string(i) + " must be smaller than the window extent " +
                    std::to_string(extent) + " (a window would see only padding)");
  }
  return w;
}

std::vector<TensorType> infer_pool(const OpContext &ctx) {
  Window w = pool_window(ctx);
  const TensorType &X = in(ctx, 0);
  TensorType out{X.dtype, {X.shape[0], X.shape[1]}};
  for (std::int64_t o : w.out) out.shape.push_back(o);
  return {out};
}

std::int64_t kernel_size(const Window &w) {
  std::int64_t k = 1;
  for (std::int64_t x : w.kernel) k *= x;
  return k;
}

std::int64_t flops_pool(const OpContext &ctx) {
  Window w = pool_window(ctx);
  std::int64_t outs = elements(ctx.outputs[0].shape);
  if (ctx.node.op == "LpPool") return outs * (2 * kernel_size(w) + 1);
  return outs * kernel_size(w) + (ctx.node.op == "AveragePool" ? outs : 0);
}

const std::vector<std::string> &spatial_names(std::size_t k) {
  static const std::vector<std::vector<std::string>> names = {{}, {"w"}, {"h", "w"}, {"d", "h", "w"}};
  return names[k];
}

OpDefinition define_pool(const OpContext &ctx) {
  Window w = pool_window(ctx);
  bool avg = ctx.node.op == "AveragePool";
  const auto &sp = spatial_names(w.kernel.size());
  std::vector<std::string> y = {"n", "c"}, xs = {"n", "c"}, pos;
  std::vector<std::pair<std::string, std::int64_t>> kr;
  for (std::size_t i = 0; i < sp.size(); ++i) {
    y.push_back(sp[i]);
    pos.push_back(Affine().add(sp[i], w.strides[i]).add("k" + sp[i], w.dilations[i]).plus(-w.pad_begin[i]).str());
    xs.push_back(pos.back());
    kr.push_back({"k" + sp[i], w.kernel[i]});
  }
  std::string x = call("X", xs);
  bool lp = ctx.node.op == "LpPool";
  if (w.reads_outside()) x = "guard(" + x + ", " + (avg || lp ? "0" : "-inf") + ")";
  std::string Y = call("Y", y);
  if (lp) {
    // (sum over the window of |x|^p)^(1/p); pads count as zeros.
    std::int64_t p = ctx.attr_int("p", 2);
    std::string term = p == 1 ? "abs(" + x + ")" : p == 2 ? x + " * " + x : "pow(abs(" + x + "), " + num(p) + ")";
    std::string root = p == 1 ? Y : p == 2 ? "sqrt(" + Y + ")" : "pow(" + Y + ", " + num(1.0 / static_cast<double>(p)) + ")";
    return {Y + " +=! " + term + " where " + where_clause(kr) + "\n" + Y + " = " + root, {"X"}, {"Y"}};
  }
  std::string text = Y + (avg ? " +=! " : " max=! ") + x + " where " + where_clause(kr);
  if (avg) {
    // Which window positions count: the input, or the input with its pads.
    bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
    // The count runs over the axes with partial windows only (an index of a
    // `where` clause must appear in its statement); the others contribute
    // their whole kernel extent.
    std::string conds;
    std::vector<std::pair<std::string, std::int64_t>> ranges, kernel_ranges;
    std::vector<std::string> sidx;
    std::int64_t whole = 1;
    for (std::size_t i = 0; i < sp.size(); ++i) {
      std::int64_t lo = include_pad ? -w.pad_begin[i] : 0, hi = w.in[i] + (include_pad ? w.pad_end[i] : 0);
      std::int64_t first = -w.pad_begin[i];
      std::int64_t last = (w.out[i] - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] - w.pad_begin[i];
      if (first >= lo && last < hi) {
        whole *= w.kernel[i];
        continue;
      }
      ranges.push_back({sp[i], w.out[i]});
      kernel_ranges.push_back(kr[i]);
      sidx.push_back(sp[i]);
      conds += std::string(conds.empty() ? "" : " && ") + pos[i] + " >= " + std::to_string(lo) + " && " + pos[i] +
               " < " + std::to_string(hi);
    }
    if (conds.empty()) {
      text += "\n" + Y + " = " + Y + " / " + std::to_string(kernel_size(w));
    } else {
      ranges.insert(ranges.end(), kernel_ranges.begin(), kernel_ranges.end());
      text += "\n" + call("cnt", sidx) + " +=! " + conds + " ? 1 : 0 where " + where_clause(ranges);
      std::string count = call("cnt", sidx);
      if (whole > 1) count = "(" + count + " * " + std::to_string(whole) + ")";
      text += "\n" + Y + " = " + Y + " / " + count;
    }
  }
  return {text, {"X"}, {"Y"}};
}

// ---- global pools ----------------------------------------------------------

std::vector<TensorType> infer_global(const OpContext &ctx) {
  const TensorType &X = pooled_input(ctx);
  TensorType out = X;
  for (int i = 2; i < X.rank(); ++i) out.shape[i] = Dim(1);
  return {out};
}

std::int64_t flops_global(const OpContext &ctx) {
  std::int64_t f = elements(in(ctx, 0).shape);
  return ctx.node.op == "GlobalAveragePool" ? f + elements(ctx.outputs[0].shape) : f;
}

OpDefinition define_global(const OpContext &ctx) {
  const TensorType &X = pooled_input(ctx);
  bool avg = ctx.node.op == "GlobalAveragePool";
  std::vector<std::string> y = {"n", "c"}, xs = {"n", "c"};
  std::int64_t count = 1;
  std::string symbolic;
  for (int i = 2; i < X.rank(); ++i) {
    y.push_back("0");
    xs.push_back(spatial_names(X.shape.size() - 2)[i - 2]);
    if (X.shape[i].is_symbolic()) symbolic += " * " + dim_text(X.shape[i]);
    else count *= X.shape[i].value;
  }
  std::string Y = call("Y", y);
  std::string text = Y + (avg ? " +=! " : " max=! ") + call("X", xs);
  if (avg) text += "\n" + Y + " = " + Y + " / " + (symbolic.empty() ? std::to_string(count) : "(" + std::to_string(count) + symbolic + ")");
  return {text, {"X"}, {"Y"}};
}

}  // namespace

std::vector<OpInfo> pool_ops() {
  return {
      OpInfo{"MaxPool", PatternKind::Reduction, 1, 1, 1, 2, pool_attrs(true), {}, infer_pool, flops_pool, define_pool},
      OpInfo{"AveragePool", PatternKind::Reduction, 1, 1, 1, 1, pool_attrs(false), {}, infer_pool, flops_pool,
             define_pool},
      OpInfo{"LpPool", PatternKind::Reduction, 1, 1, 1, 1, lp_pool_attrs(), {}, infer_pool, flops_pool, define_pool},
      OpInfo{"GlobalAveragePool", PatternKind::Reduction, 1, 1, 1, 1, {}, {}, infer_global, flops_global, define_global},
      OpInfo{"GlobalMaxPool", PatternKind::Reduction, 1, 1, 1, 1, {}, {}, infer_global, flops_global, define_global},
  };
}

}  // namespace atl::ops
