// Registry entries of the operators that cut and join tensors: Concat,
// Split, Slice, Pad (constant, reflect, edge, wrap), Gather and
// GatherElements.
#include "graph/ir/ops/ops_util.h"

#include <climits>

namespace atl::ops {
namespace {

void no_runtime_input(const OpContext &ctx, int slot, const char *attr) {
  if (has_input(ctx, slot))
    fail(ctx, std::string("'") + attr + "' must be a constant: give it as inline data or as the attribute");
}

std::int64_t no_flops(const OpContext &) { return 0; }

// ---- Concat ------------------------------------------------------------------

int concat_axis(const OpContext &ctx) {
  if (!ctx.attr("axis")) fail(ctx, "attribute 'axis' is required");
  return norm_axis(ctx, ctx.attr_int("axis", 0), in(ctx, 0).rank(), "axis");
}

std::vector<TensorType> infer_concat(const OpContext &ctx) {
  const TensorType &first = in(ctx, 0);
  if (first.rank() == 0) fail(ctx, "inputs must have rank at least 1");
  int axis = concat_axis(ctx);
  TensorType out = first;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    const TensorType &t = in(ctx, static_cast<int>(i));
    std::string what = "input " + std::to_string(i) + " " + t.str();
    require_same_dtype(ctx, first, "input 0", t, "input " + std::to_string(i));
    if (t.rank() != first.rank()) fail(ctx, what + " has another rank than input 0 " + first.str());
    for (int d = 0; d < t.rank(); ++d)
      if (d != axis && t.shape[d] != first.shape[d])
        fail(ctx, what + " differs from input 0 " + first.str() + " in dimension " + std::to_string(d) +
                      " (only the axis " + std::to_string(axis) + " may differ)");
    if (ctx.inputs.size() > 1) total += concrete(ctx, t.shape[axis], "concatenating along it");
  }
  if (ctx.inputs.size() > 1) out.shape[axis] = Dim(total);
  return {out};
}

OpDefinition define_concat(const OpContext &ctx) {
  int axis = concat_axis(ctx);
  std::vector<std::string> idx = index_names(in(ctx, 0).rank()), names;
  std::string text;
  std::int64_t off = 0;
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
    std::vector<std::string> y = idx;
    y[axis] = Affine(idx[axis]).plus(off).str();
    names.push_back("inputs_" + std::to_string(i));
    text += (i ? "\n" : "") + call("concat_result", y) + " = " + call(names.back(), idx);
    if (ctx.inputs.size() > 1) off += in(ctx, static_cast<int>(i)).shape[axis].value;
  }
  return {text, names, {"concat_result"}};
}

// ---- Split -------------------------------------------------------------------

std::vector<std::int64_t> split_sizes(const OpContext &ctx, int &axis) {
  no_runtime_input(ctx, 1, "split");
  const TensorType &X = in(ctx, 0);
  if (X.rank() == 0) fail(ctx, "input must have rank at least 1");
  axis = norm_axis(ctx, ctx.attr_int("axis", 0), X.rank(), "axis");
  std::int64_t n = static_cast<std::int64_t>(ctx.node.outputs.size());
  if (n == 1 && !ctx.attr("split")) return {0};  // the whole axis, symbolic or not
  std::int64_t dim = concrete(ctx, X.shape[axis], "splitting along it");
  std::vector<std::int64_t> sizes;
  if (ctx.attr("split")) {
    if (ctx.attr("num_outputs")) fail(ctx, "give either 'split' or 'num_outputs', not both");
    sizes = ctx.attr_ints("split", {});
    std::int64_t sum = 0;
    for (std::int64_t s : sizes) {
      if (s < 1) fail(ctx, "split sizes must be positive, got " + std::to_string(s));
      sum += s;
    }
    if (static_cast<std::int64_t>(sizes.size()) != n)
      fail(ctx, "split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(n) + " outputs");
    if (sum != dim)
      fail(ctx, "split sizes add up to " + std::to_string(sum) + " but axis " + std::to_string(axis) + " has size " +
                    std::to_string(dim));
    return sizes;
  }
  if (ctx.attr("num_outputs") && ctx.attr_int("num_outputs", 0) != n)
    fail(ctx, "num_outputs is " + std::to_string(ctx.attr_int("num_outputs", 0)) + " but the node has " +
                  std::to_string(n) + " outputs");
  std::int64_t chunk = (dim + n - 1) / n;
  for (std::int64_t i = 0; i < n; ++i) sizes.push_back(i + 1 < n ? chunk : dim - chunk * (n - 1));
  if (sizes.back() < 1)
    fail(ctx, "axis " + std::to_string(axis) + " of size " + std::to_string(dim) + " cannot be split into " +
                  std::to_string(n) + " parts");
  return sizes;
}

std::vector<TensorType> infer_split(const OpContext &ctx) {
  int axis = 0;
  std::vector<std::int64_t> sizes = split_sizes(ctx, axis);
  std::vector<TensorType> out;
  for (std::int64_t s : sizes) {
    TensorType t = in(ctx, 0);
    if (s) t.shape[axis] = Dim(s);
    out.push_back(t);
  }
  return out;
}

OpDefinition define_split(const OpContext &ctx) {
  int axis = 0;
  std::vector<std::int64_t> sizes = split_sizes(ctx, axis);
  std::vector<std::string> idx = index_names(in(ctx, 0).rank()), names;
  std::string text;
  std::int64_t off = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<std::string> xs = idx;
    xs[axis] = Affine(idx[axis]).plus(off).str();
    names.push_back("outputs_" + std::to_string(k));
    text += (k ? "\n" : "") + call(names.back(), idx) + " = " + call("input", xs);
    off += sizes[k];
  }
  return {text, in_names(ctx, {"input", "split"}), names};
}

// ---- Slice -------------------------------------------------------------------

struct SliceAxis {
  std::int64_t start = 0, step = 1, size = 0;
  bool whole = true;  ///< the axis passes through unchanged
};

std::vector<SliceAxis> slice_plan(const OpContext &ctx) {
  for (int s = 1; s <= 4; ++s) no_runtime_input(ctx, s, s == 1 ? "starts" : s == 2 ? "ends" : s == 3 ? "axes" : "steps");
  const TensorType &X = in(ctx, 0);
  if (!ctx.attr("starts") || !ctx.attr("ends")) fail(ctx, "'starts' and 'ends' are required");
  std::vector<std::int64_t> starts = ctx.attr_ints("starts", {}), ends = ctx.attr_ints("ends", {});
  std::vector<std::int64_t> dflt_axes;
  for (std::size_t i = 0; i < starts.size(); ++i) dflt_axes.push_back(static_cast<std::int64_t>(i));
  std::vector<int> axes = norm_axes(ctx, ctx.attr_ints("axes", dflt_axes), X.rank(), "axes");
  std::vector<std::int64_t> steps = ctx.attr_ints("steps", std::vector<std::int64_t>(starts.size(), 1));
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(ctx, "starts, ends, axes and steps must have the same length");
  std::vector<SliceAxis> plan(X.shape.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    int a = axes[i];
    std::int64_t st = steps[i], b = starts[i], e = ends[i];
    if (st == 0) fail(ctx, "steps must not be 0");
    const Dim &d = X.shape[a];
    if (d.is_symbolic()) {
      if (st == 1 && (b == 0 || b <= -static_cast<std::int64_t>(INT_MAX)) && e >= INT_MAX) continue;
      concrete(ctx, d, "slicing axis " + std::to_string(a) + " anywhere but whole");
    }
    std::int64_t n = d.value;
    if (b < 0) b += n;
    if (e < 0) e += n;
    if (st > 0) {
      b = std::clamp<std::int64_t>(b, 0, n);
      e = std::clamp<std::int64_t>(e, 0, n);
    } else {
      b = std::clamp<std::int64_t>(b, 0, n - 1);
      e = std::clamp<std::int64_t>(e, -1, n - 1);
    }
    std::int64_t size = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    if (size <= 0)
      fail(ctx, "the slice of axis " + std::to_string(a) + " (size " + std::to_string(n) + ") from " +
                    std::to_string(starts[i]) + " to " + std::to_string(ends[i]) + " by " + std::to_string(st) +
                    " is empty");
    plan[a] = {b, st, size, false};
  }
  return plan;
}

std::vector<TensorType> infer_slice(const OpContext &ctx) {
  std::vector<SliceAxis> plan = slice_plan(ctx);
  TensorType t = in(ctx, 0);
  for (std::size_t a = 0; a < plan.size(); ++a)
    if (!plan[a].whole) t.shape[a] = Dim(plan[a].size);
  return {t};
}

OpDefinition define_slice(const OpContext &ctx) {
  std::vector<SliceAxis> plan = slice_plan(ctx);
  std::vector<std::string> idx = index_names(static_cast<int>(plan.size())), xs = idx;
  for (std::size_t a = 0; a < plan.size(); ++a)
    if (!plan[a].whole) xs[a] = Affine().add(idx[a], plan[a].step).plus(plan[a].start).str();
  return {call("output", idx) + " = " + call("data", xs), in_names(ctx, {"data", "starts", "ends", "axes", "steps"}),
          {"output"}};
}

// ---- Pad ---------------------------------------------------------------------

struct PadPlan {
  std::vector<std::int64_t> begin, end;  ///< per axis of the input
  std::string mode;
  double value = 0;
};

PadPlan pad_plan(const OpContext &ctx) {
  for (int s = 1; s <= 3; ++s) no_runtime_input(ctx, s, s == 1 ? "pads" : s == 2 ? "constant_value" : "axes");
  const TensorType &X = in(ctx, 0);
  int r = X.rank();
  PadPlan p;
  p.mode = ctx.attr_string("mode", "constant");
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge" && p.mode != "wrap")
    fail(ctx, "mode must be constant, reflect, edge or wrap, not '" + p.mode + "'");
  p.value = ctx.attr_float("constant_value", 0.0);
  if (!ctx.attr("pads")) fail(ctx, "'pads' is required");
  std::vector<std::int64_t> dflt;
  for (int i = 0; i < r; ++i) dflt.push_back(i);
  std::vector<int> axes = norm_axes(ctx, ctx.attr_ints("axes", dflt), r, "axes");
  std::vector<std::int64_t> pads = ctx.attr_ints("pads", {});
  if (pads.size() != 2 * axes.size())
    fail(ctx, "pads has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * axes.size()) +
                  " (begin and end per padded axis)");
  p.begin.assign(r, 0);
  p.end.assign(r, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    int a = axes[i];
    std::int64_t b = pads[i], e = pads[axes.size() + i];
    p.begin[a] = b;
    p.end[a] = e;
    if (!b && !e) continue;
    std::int64_t n = concrete(ctx, X.shape[a], "padding it");
    if (n + b + e < 1) fail(ctx, "pads remove all of axis " + std::to_string(a));
    if (p.mode != "constant" && (b < 0 || e < 0)) fail(ctx, "negative pads are supported in constant mode only");
    if (p.mode == "reflect" && (b > n - 1 || e > n - 1))
      fail(ctx, "reflect padding of " + std::to_string(std::max(b, e)) + " needs axis " + std::to_string(a) +
                    " to have more than that many elements, it has " + std::to_string(n));
    if (p.mode == "wrap" && (b > n || e > n))
      fail(ctx, "wrap padding of " + std::to_string(std::max(b, e)) + " is larger than axis " + std::to_string(a) +
                    " (size " + std::to_string(n) + ")");
  }
  return p;
}

std::vector<TensorType> infer_pad(const OpContext &ctx) {
  PadPlan p = pad_plan(ctx);
  TensorType t = in(ctx, 0);
  for (std::size_t a = 0; a < p.begin.size(); ++a)
    if (p.begin[a] || p.end[a]) t.shape[a] = Dim(t.shape[a].value + p.begin[a] + p.end[a]);
  return {t};
}

OpDefinition define_pad(const OpContext &ctx) {
  PadPlan p = pad_plan(ctx);
  const SymShape &xs = in(ctx, 0).shape;
  int r = static_cast<int>(xs.size());
  std::vector<std::string> idx = index_names(r), inner(r);
  bool grows = false;
  for (int a = 0; a < r; ++a) {
    inner[a] = Affine(idx[a]).plus(-p.begin[a]).str();
    grows = grows || p.begin[a] > 0 || p.end[a] > 0;
  }
  OpDefinition d{"", in_names(ctx, {"data", "pads", "constant_value", "axes"}), {"output"}};
  if (p.mode == "constant") {
    std::string x = call("data", inner);
    d.text = call("output", idx) + " = " + (grows ? "guard(" + x + ", " + num(p.value) + ")" : x);
    // A padded axis's index ranges over the output: alone in the guarded
    // read (no begin padding) it would otherwise take the input's extent.
    std::vector<std::pair<std::string, std::int64_t>> where;
    for (int a = 0; a < r; ++a)
      if (p.begin[a] || p.end[a]) where.push_back({idx[a], xs[a].value + p.begin[a] + p.end[a]});
    if (!where.empty()) d.text += " where " + where_clause(where);
    return d;
  }
  // The interior, then the begin and end regions of each padded axis in
  // turn, read back from the output (axes before `a` already padded).
  std::vector<std::string> mid(r);
  for (int a = 0; a < r; ++a) mid[a] = Affine(idx[a]).plus(p.begin[a]).str();
  d.text = call("output", mid) + " = " + call("data", idx);
  for (int a = 0; a < r; ++a) {
    std::int64_t b = p.begin[a], e = p.end[a], n = xs[a].value;
    for (int side = 0; side < 2; ++side) {
      std::int64_t width = side == 0 ? b : e;
      if (width == 0) continue;
      std::vector<std::string> lhs(r), rhs(r);
      std::vector<std::pair<std::string, std::int64_t>> where = {{idx[a], width}};
      for (int o = 0; o < r; ++o) {
        if (o == a) continue;
        lhs[o] = rhs[o] = o < a ? idx[o] : mid[o];
        if (o > a && (p.begin[o] || p.end[o])) where.push_back({idx[o], xs[o].value});
      }
      const std::string &j = idx[a];
      lhs[a] = side == 0 ? j : Affine(j).plus(b + n).str();
      if (p.mode == "edge") rhs[a] = std::to_string(side == 0 ? b : b + n - 1);
      else if (p.mode == "reflect") rhs[a] = side == 0 ? Affine().add(j, -1).plus(2 * b).str() : Affine().add(j, -1).plus(b + n - 2).str();
      else rhs[a] = side == 0 ? Affine(j).plus(n).str() : Affine(j).plus(b).str();
      d.text += "\n" + call("output", lhs) + " = " + call("output", rhs) + " where " + where_clause(where);
    }
  }
  return d;
}

// ---- Gather ------------------------------------------------------------------

std::vector<TensorType> infer_gather(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0), &I = in(ctx, 1);
  require_index(ctx, I, "indices");
  if (X.rank() == 0) fail(ctx, "data must have rank at least 1");
  int axis = norm_axis(ctx, ctx.attr_int("axis", 0), X.rank(), "axis");
  TensorType t{X.dtype, SymShape(X.shape.begin(), X.shape.begin() + axis)};
  t.shape.insert(t.shape.end(), I.shape.begin(), I.shape.end());
  t.shape.insert(t.shape.end(), X.shape.begin() + axis + 1, X.shape.end());
  return {t};
}

OpDefinition define_gather(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0), &I = in(ctx, 1);
  int axis = norm_axis(ctx, ctx.attr_int("axis", 0), X.rank(), "axis");
  std::vector<std::string> idx = index_names(static_cast<int>(ctx.outputs[0].shape.size()));
  std::vector<std::string> xs(idx.begin(), idx.begin() + axis);
  std::string at = call("indices", std::vector<std::string>(idx.begin() + axis, idx.begin() + axis + I.rank()));
  xs.push_back(at + " < 0 ? " + at + " + " + dim_text(X.shape[axis]) + " : " + at);
  xs.insert(xs.end(), idx.begin() + axis + I.rank(), idx.end());
  return {call("output", idx) + " = " + call("data", xs), {"data", "indices"}, {"output"}};
}

// ---- GatherElements ------------------------------------------------------------

int gather_elements_axis(const OpContext &ctx) {
  return norm_axis(ctx, ctx.attr_int("axis", 0), in(ctx, 0).rank(), "axis");
}

std::vector<TensorType> infer_gather_elements(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0), &I = in(ctx, 1);
  require_index(ctx, I, "indices");
  if (X.rank() == 0) fail(ctx, "data must have rank at least 1");
  if (I.rank() != X.rank())
    fail(ctx, "indices " + I.str() + " must have the rank of data " + X.str());
  int axis = gather_elements_axis(ctx);
  // Off the axis, an output element reads data at its own position: indices
  // may be shorter than data there, not longer.
  for (int d = 0; d < X.rank(); ++d) {
    if (d == axis || I.shape[d] == X.shape[d]) continue;
    if (I.shape[d].is_symbolic() || X.shape[d].is_symbolic() || I.shape[d].value > X.shape[d].value)
      fail(ctx, "indices " + I.str() + " exceed data " + X.str() + " in dimension " + std::to_string(d) +
                    " (only the axis " + std::to_string(axis) + " may be longer)");
  }
  return {TensorType{X.dtype, I.shape}};
}

/// output(i, j) = data(indices(i, j), j) for axis 0; a negative index counts
/// from the end of the axis.
OpDefinition define_gather_elements(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  int axis = gather_elements_axis(ctx);
  std::vector<std::string> idx = index_names(X.rank()), xs = idx;
  std::string at = call("indices", idx);
  xs[axis] = at + " < 0 ? " + at + " + " + dim_text(X.shape[axis]) + " : " + at;
  return {call("output", idx) + " = " + call("data", xs), {"data", "indices"}, {"output"}};
}

}  // namespace

std::vector<OpInfo> slicing_ops() {
  return {
      OpInfo{"Concat", PatternKind::Injective, 1, -1, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_concat, no_flops,
             define_concat},
      OpInfo{"Split", PatternKind::Injective, 1, 2, 1, 64, {{"axis", AttrKind::Int}, {"num_outputs", AttrKind::Int}, {"split", AttrKind::Ints}},
             {{1, "split"}}, infer_split, no_flops, define_split},
      OpInfo{"Slice", PatternKind::Injective, 1, 5, 1, 1,
             {{"starts", AttrKind::Ints}, {"ends", AttrKind::Ints}, {"axes", AttrKind::Ints}, {"steps", AttrKind::Ints}},
             {{1, "starts"}, {2, "ends"}, {3, "axes"}, {4, "steps"}}, infer_slice, no_flops, define_slice},
      OpInfo{"Pad", PatternKind::Injective, 1, 4, 1, 1,
             {{"mode", AttrKind::String}, {"pads", AttrKind::Ints}, {"constant_value", AttrKind::Float}, {"axes", AttrKind::Ints}},
             {{1, "pads"}, {2, "constant_value"}, {3, "axes"}}, infer_pad, no_flops, define_pad},
      OpInfo{"Gather", PatternKind::Injective, 2, 2, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_gather, no_flops,
             define_gather},
      OpInfo{"GatherElements", PatternKind::Injective, 2, 2, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_gather_elements,
             no_flops, define_gather_elements},
  };
}

}  // namespace atl::ops
