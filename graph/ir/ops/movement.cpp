// Registry entries of the layout operators: Transpose, Reshape, Flatten,
// Squeeze, Unsqueeze, Expand, Tile, DepthToSpace, SpaceToDepth (views,
// broadcasts, repeats and block rearrangements, no arithmetic), Trilu (a
// triangle of the last two axes), EyeLike (ones on a diagonal) and OneHot.
#include "graph/ir/ops/ops_util.h"

#include <algorithm>

namespace atl::ops {
namespace {

void no_runtime_input(const OpContext &ctx, int slot, const char *attr) {
  if (has_input(ctx, slot))
    fail(ctx, std::string("'") + attr + "' must be a constant: give it as inline data or as the attribute");
}

/// A product of dims: a constant times symbols.
struct Product {
  std::int64_t c = 1;
  std::vector<std::string> syms;  ///< sorted
  void mul(const Dim &d) {
    if (d.is_symbolic()) syms.insert(std::upper_bound(syms.begin(), syms.end(), d.symbol), d.symbol);
    else c *= d.value;
  }
  std::string str() const {
    std::string s = std::to_string(c);
    for (const auto &x : syms) s += " * " + x;
    return s;
  }
};

Product product_of(const SymShape &s, std::size_t from, std::size_t to) {
  Product p;
  for (std::size_t i = from; i < to; ++i) p.mul(s[i]);
  return p;
}

/// A product as one Dim, or an error naming the symbols.
Dim as_dim(const OpContext &ctx, const Product &p, const std::string &what) {
  if (p.syms.empty()) return Dim(p.c);
  if (p.syms.size() == 1 && p.c == 1) return Dim::sym(p.syms[0]);
  fail(ctx, what + " would be " + p.str() + ": arithmetic on symbolic dimension '" + p.syms[0] +
                "' is not supported");
}

/// Compute text copying `in` (shape a) into `out` (shape b) of the same size
/// in row-major order: shared leading and trailing dims pass through, the
/// rest is linearised with floor division and modulo.
std::string reshape_text(const OpContext &ctx, const std::string &in_name, const SymShape &a,
                         const std::string &out_name, const SymShape &b) {
  std::size_t pre = 0, suf = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  std::vector<std::string> yi = index_names(static_cast<int>(b.size()));
  std::vector<std::string> xs(a.size());
  for (std::size_t i = 0; i < pre; ++i) xs[i] = yi[i];
  for (std::size_t i = 0; i < suf; ++i) xs[a.size() - 1 - i] = yi[b.size() - 1 - i];
  std::size_t a_end = a.size() - suf, b_end = b.size() - suf;
  for (std::size_t i = pre; i < a_end; ++i) concrete(ctx, a[i], "reshaping across it");
  for (std::size_t i = pre; i < b_end; ++i) concrete(ctx, b[i], "reshaping across it");
  Affine lin;
  std::int64_t stride = 1;
  for (std::size_t i = b_end; i-- > pre;) {
    lin.add(yi[i], stride);
    stride *= b[i].value;
  }
  std::reverse(lin.terms.begin(), lin.terms.end());
  std::string L = lin.str(), Lp = lin.terms.size() > 1 ? "(" + L + ")" : L;
  stride = 1;
  for (std::size_t i = a_end; i-- > pre;) {
    std::string q = stride == 1 ? L : "floor(" + Lp + " / " + std::to_string(stride) + ")";
    if (i != pre) q = (stride == 1 ? Lp : q) + " % " + std::to_string(a[i].value);
    xs[i] = q;
    stride *= a[i].value;
  }
  return call(out_name, yi) + " = " + call(in_name, xs);
}

// ---- Transpose -------------------------------------------------------------

std::vector<int> perm_of(const OpContext &ctx) {
  int r = in(ctx, 0).rank();
  std::vector<std::int64_t> dflt;
  for (int i = r - 1; i >= 0; --i) dflt.push_back(i);
  std::vector<std::int64_t> p = ctx.attr_ints("perm", dflt);
  if (static_cast<int>(p.size()) != r)
    fail(ctx, "perm has " + std::to_string(p.size()) + " entries for a tensor of rank " + std::to_string(r));
  return norm_axes(ctx, p, r, "perm");
}

std::vector<TensorType> infer_transpose(const OpContext &ctx) {
  std::vector<int> p = perm_of(ctx);
  TensorType out = in(ctx, 0);
  for (std::size_t j = 0; j < p.size(); ++j) out.shape[j] = in(ctx, 0).shape[p[j]];
  return {out};
}

OpDefinition define_transpose(const OpContext &ctx) {
  std::vector<int> p = perm_of(ctx);
  std::vector<std::string> idx = index_names(static_cast<int>(p.size())), xs(p.size());
  for (std::size_t j = 0; j < p.size(); ++j) xs[p[j]] = idx[j];
  return {call("transposed", idx) + " = " + call("data", xs), {"data"}, {"transposed"}};
}

// ---- Reshape and Flatten ---------------------------------------------------

std::vector<TensorType> infer_reshape(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "shape");
  const TensorType &X = in(ctx, 0);
  if (!ctx.attr("shape")) fail(ctx, "the target 'shape' is required");
  std::vector<std::int64_t> s = ctx.attr_ints("shape", {});
  bool allowzero = ctx.attr_int("allowzero", 0) != 0;
  SymShape out;
  int infer_at = -1;
  Product known;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer_at >= 0) fail(ctx, "shape has more than one -1");
      infer_at = static_cast<int>(i);
      out.push_back(Dim(1));
      continue;
    }
    if (s[i] == 0 && !allowzero) {
      if (i >= X.shape.size())
        fail(ctx, "shape entry " + std::to_string(i) + " is 0 (copy) but the input " + X.str() + " has no such dim");
      out.push_back(X.shape[i]);
    } else if (s[i] <= 0) {
      fail(ctx, "shape entry " + std::to_string(s[i]) + " is invalid (sizes must be positive, 0 or -1)");
    } else {
      out.push_back(Dim(s[i]));
    }
    known.mul(out.back());
  }
  Product total = product_of(X.shape, 0, X.shape.size());
  std::string target = "[";
  for (std::size_t i = 0; i < s.size(); ++i) target += (i ? ", " : "") + std::to_string(s[i]);
  target += "]";
  if (infer_at >= 0) {
    Product rest{total.c, {}};
    std::vector<std::string> syms = total.syms;
    for (const auto &x : known.syms) {
      auto it = std::find(syms.begin(), syms.end(), x);
      if (it == syms.end()) fail(ctx, "cannot reshape " + X.str() + " into " + target + ": symbol '" + x + "' does not divide the input");
      syms.erase(it);
    }
    if (total.c % known.c)
      fail(ctx, "cannot reshape " + X.str() + " into " + target + ": " + std::to_string(total.c) +
                    " elements are not a multiple of " + std::to_string(known.c));
    rest.c = total.c / known.c;
    rest.syms = syms;
    out[infer_at] = as_dim(ctx, rest, "the -1 dimension");
  } else if (known.c != total.c || known.syms != total.syms) {
    fail(ctx, "cannot reshape " + X.str() + " (" + total.str() + " elements) into " + target + " (" + known.str() +
                  " elements)");
  }
  TensorType t{X.dtype, out};
  reshape_text(ctx, "data", X.shape, "reshaped", out);  // rejects what cannot be expressed
  return {t};
}

OpDefinition define_reshape(const OpContext &ctx) {
  return {reshape_text(ctx, "data", in(ctx, 0).shape, "reshaped", ctx.outputs[0].shape), in_names(ctx, {"data", "shape"}),
          {"reshaped"}};
}

std::vector<TensorType> infer_flatten(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  std::int64_t axis = ctx.attr_int("axis", 1);
  int r = X.rank();
  if (axis < -r || axis > r) fail(ctx, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  TensorType t{X.dtype, {as_dim(ctx, product_of(X.shape, 0, a), "the first dimension"),
                         as_dim(ctx, product_of(X.shape, a, X.shape.size()), "the second dimension")}};
  reshape_text(ctx, "input", X.shape, "output", t.shape);
  return {t};
}

OpDefinition define_flatten(const OpContext &ctx) {
  return {reshape_text(ctx, "input", in(ctx, 0).shape, "output", ctx.outputs[0].shape), {"input"}, {"output"}};
}

// ---- Squeeze and Unsqueeze -------------------------------------------------

std::vector<bool> squeezed_axes(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "axes");
  const TensorType &X = in(ctx, 0);
  std::vector<bool> sq(X.shape.size(), false);
  if (!ctx.attr("axes")) {
    for (std::size_t i = 0; i < sq.size(); ++i) sq[i] = X.shape[i] == Dim(1);
    return sq;
  }
  for (int a : norm_axes(ctx, ctx.attr_ints("axes", {}), X.rank(), "axes")) {
    if (X.shape[a] != Dim(1)) fail(ctx, "axis " + std::to_string(a) + " has size " + X.shape[a].str() + ", not 1");
    sq[a] = true;
  }
  return sq;
}

std::vector<TensorType> infer_squeeze(const OpContext &ctx) {
  std::vector<bool> sq = squeezed_axes(ctx);
  TensorType t{in(ctx, 0).dtype, {}};
  for (std::size_t i = 0; i < sq.size(); ++i)
    if (!sq[i]) t.shape.push_back(in(ctx, 0).shape[i]);
  return {t};
}

OpDefinition define_squeeze(const OpContext &ctx) {
  std::vector<bool> sq = squeezed_axes(ctx);
  std::vector<std::string> y, xs;
  for (std::size_t i = 0; i < sq.size(); ++i) {
    if (sq[i]) {
      xs.push_back("0");
    } else {
      y.push_back("i" + std::to_string(y.size()));
      xs.push_back(y.back());
    }
  }
  return {call("squeezed", y) + " = " + call("data", xs), in_names(ctx, {"data", "axes"}), {"squeezed"}};
}

std::vector<bool> inserted_axes(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "axes");
  if (!ctx.attr("axes")) fail(ctx, "'axes' is required");
  std::vector<std::int64_t> axes = ctx.attr_ints("axes", {});
  int r = in(ctx, 0).rank() + static_cast<int>(axes.size());
  std::vector<bool> ins(r, false);
  for (int a : norm_axes(ctx, axes, r, "axes")) ins[a] = true;
  return ins;
}

std::vector<TensorType> infer_unsqueeze(const OpContext &ctx) {
  std::vector<bool> ins = inserted_axes(ctx);
  const TensorType &X = in(ctx, 0);
  TensorType t{X.dtype, {}};
  std::size_t k = 0;
  for (bool b : ins) t.shape.push_back(b ? Dim(1) : X.shape[k++]);
  return {t};
}

OpDefinition define_unsqueeze(const OpContext &ctx) {
  std::vector<bool> ins = inserted_axes(ctx);
  std::vector<std::string> y, xs;
  for (bool b : ins) {
    if (b) {
      y.push_back("0");
    } else {
      xs.push_back("i" + std::to_string(xs.size()));
      y.push_back(xs.back());
    }
  }
  return {call("expanded", y) + " = " + call("data", xs), in_names(ctx, {"data", "axes"}), {"expanded"}};
}

// ---- Expand ------------------------------------------------------------------

std::vector<TensorType> infer_expand(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "shape");
  if (!ctx.attr("shape")) fail(ctx, "the target 'shape' is required");
  SymShape target;
  for (std::int64_t d : ctx.attr_ints("shape", {})) {
    if (d < 1) fail(ctx, "shape entries must be positive, got " + std::to_string(d));
    target.push_back(Dim(d));
  }
  return {TensorType{in(ctx, 0).dtype, broadcast_shapes(ctx, {in(ctx, 0).shape, target})}};
}

OpDefinition define_expand(const OpContext &ctx) {
  const SymShape &out = ctx.outputs[0].shape;
  std::vector<std::string> idx = index_names(static_cast<int>(out.size()));
  return {call("output", idx) + " = " + call("input", broadcast_subs(in(ctx, 0).shape, out, idx)),
          in_names(ctx, {"input", "shape"}), {"output"}};
}

// ---- Tile ----------------------------------------------------------------------

std::vector<std::int64_t> tile_repeats(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "repeats");
  if (!ctx.attr("repeats")) fail(ctx, "'repeats' is required");
  const TensorType &X = in(ctx, 0);
  std::vector<std::int64_t> r = ctx.attr_ints("repeats", {});
  if (static_cast<int>(r.size()) != X.rank())
    fail(ctx, "repeats has " + std::to_string(r.size()) + " entries for an input of rank " + std::to_string(X.rank()));
  for (std::size_t a = 0; a < r.size(); ++a) {
    if (r[a] < 1)
      fail(ctx, "repeats entries must be positive (dimensions are never empty), got " + std::to_string(r[a]) +
                    " for axis " + std::to_string(a));
    if (r[a] > 1) concrete(ctx, X.shape[a], "repeating axis " + std::to_string(a));
  }
  return r;
}

std::vector<TensorType> infer_tile(const OpContext &ctx) {
  std::vector<std::int64_t> r = tile_repeats(ctx);
  TensorType t = in(ctx, 0);
  for (std::size_t a = 0; a < r.size(); ++a)
    if (r[a] > 1) t.shape[a] = Dim(t.shape[a].value * r[a]);
  return {t};
}

/// output(i, j) = input(i % rows, j): a repeated axis reads modulo its size.
OpDefinition define_tile(const OpContext &ctx) {
  std::vector<std::int64_t> r = tile_repeats(ctx);
  const SymShape &xs = in(ctx, 0).shape;
  std::vector<std::string> idx = index_names(static_cast<int>(r.size())), subs = idx;
  for (std::size_t a = 0; a < r.size(); ++a)
    if (r[a] > 1) subs[a] = idx[a] + " % " + std::to_string(xs[a].value);
  return {call("output", idx) + " = " + call("input", subs), in_names(ctx, {"input", "repeats"}), {"output"}};
}

// ---- Trilu -----------------------------------------------------------------------

/// The diagonal offset k as Compute text: the attribute of that name (where
/// the front end put a constant input), 0 when omitted, or a read of the
/// run-time input k (i64, one element), which only the condition reads.
/// Checks the upper attribute and the input's rank too.
std::string trilu_k(const OpContext &ctx) {
  std::int64_t upper = ctx.attr_int("upper", 1);
  if (upper != 0 && upper != 1) fail(ctx, "upper must be 0 or 1, got " + std::to_string(upper));
  require_rank_at_least(ctx, in(ctx, 0), 2, "input");
  if (!has_input(ctx, 1)) return num(static_cast<double>(ctx.attr_int("k", 0)));
  if (ctx.attr("k")) fail(ctx, "k is given both as an input and as the attribute");
  const TensorType &k = in(ctx, 1);
  if (k.dtype != DType::I64) fail(ctx, "k must be i64, got " + k.str());
  if (k.rank() > 1 || (k.rank() == 1 && k.shape[0] != Dim(1))) fail(ctx, "k must hold one value, got " + k.str());
  return k.rank() == 0 ? "k()" : "k(0)";
}

std::vector<TensorType> infer_trilu(const OpContext &ctx) {
  trilu_k(ctx);
  return {in(ctx, 0)};
}

/// output(.., r, c) = input(.., r, c) where c - r >= k (upper) or c - r <= k
/// (lower), 0 elsewhere: an affine condition on the last two indices when k
/// is a constant.
OpDefinition define_trilu(const OpContext &ctx) {
  std::string k = trilu_k(ctx);
  int r = in(ctx, 0).rank();
  std::vector<std::string> idx = index_names(r);
  bool upper = ctx.attr_int("upper", 1) != 0;
  std::string cond = idx[r - 1] + " - " + idx[r - 2] + (upper ? " >= " : " <= ") + k;
  return {call("output", idx) + " = " + cond + " ? " + call("input", idx) + " : 0", in_names(ctx, {"input", "k"}),
          {"output"}};
}

// ---- DepthToSpace, SpaceToDepth --------------------------------------------------

struct Blocks {
  std::int64_t b, C, H, W;
  bool dcr;  ///< mode DCR (depth-column-row, the default) or CRD
};

/// blocksize and mode, with the concrete C, H and W that the block
/// arithmetic of the subscripts needs; N may be symbolic.
Blocks blocks(const OpContext &ctx) {
  const TensorType &X = in(ctx, 0);
  if (X.rank() != 4) fail(ctx, "input must be N x C x H x W, got " + X.str());
  if (!ctx.attr("blocksize")) fail(ctx, "'blocksize' is required");
  Blocks k{ctx.attr_int("blocksize", 1), concrete(ctx, X.shape[1], "block rearrangement"),
           concrete(ctx, X.shape[2], "block rearrangement"), concrete(ctx, X.shape[3], "block rearrangement"), true};
  if (k.b < 1) fail(ctx, "blocksize must be positive, got " + std::to_string(k.b));
  std::string mode = ctx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") fail(ctx, "mode must be 'DCR' or 'CRD', not '" + mode + "'");
  k.dcr = mode == "DCR";
  if (ctx.node.op == "DepthToSpace" && k.C % (k.b * k.b) != 0)
    fail(ctx, "channels " + std::to_string(k.C) + " are not a multiple of blocksize^2 = " + std::to_string(k.b * k.b));
  if (ctx.node.op == "SpaceToDepth" && (k.H % k.b != 0 || k.W % k.b != 0))
    fail(ctx, "H " + std::to_string(k.H) + " and W " + std::to_string(k.W) + " must be multiples of blocksize " +
                  std::to_string(k.b));
  return k;
}

std::vector<TensorType> infer_blocks(const OpContext &ctx) {
  Blocks k = blocks(ctx);
  TensorType t = in(ctx, 0);
  if (ctx.node.op == "DepthToSpace") t.shape = {t.shape[0], Dim(k.C / (k.b * k.b)), Dim(k.H * k.b), Dim(k.W * k.b)};
  else t.shape = {t.shape[0], Dim(k.C * k.b * k.b), Dim(k.H / k.b), Dim(k.W / k.b)};
  return {t};
}

/// DepthToSpace: output (n, c, y, x) reads channel (y % b * b + x % b) * C/b^2
/// + c (DCR) or c * b^2 + y % b * b + x % b (CRD) at (y / b, x / b).
/// SpaceToDepth is its inverse: output channel o reads channel o % C at block
/// offset (o / C / b, o / C % b) (DCR), or channel o / b^2 at offset
/// (o / b % b, o % b) (CRD).
OpDefinition define_blocks(const OpContext &ctx) {
  Blocks k = blocks(ctx);
  std::string b = std::to_string(k.b), bb = std::to_string(k.b * k.b);
  std::vector<std::string> idx = index_names(4), xs = idx;
  if (ctx.node.op == "DepthToSpace") {
    std::string offset = "i2 % " + b + " * " + b + " + i3 % " + b;
    xs[1] = k.dcr ? "(" + offset + ") * " + std::to_string(k.C / (k.b * k.b)) + " + i1" : "i1 * " + bb + " + " + offset;
    xs[2] = "i2 / " + b;
    xs[3] = "i3 / " + b;
  } else {
    std::string C = std::to_string(k.C);
    xs[1] = k.dcr ? "i1 % " + C : "i1 / " + bb;
    xs[2] = "i2 * " + b + " + " + (k.dcr ? "i1 / " + C + " / " + b : "i1 / " + b + " % " + b);
    xs[3] = "i3 * " + b + " + " + (k.dcr ? "i1 / " + C + " % " + b : "i1 % " + b);
  }
  return {call("output", idx) + " = " + call("input", xs), {"input"}, {"output"}};
}

// ---- EyeLike -------------------------------------------------------------------

std::vector<TensorType> infer_eyelike(const OpContext &ctx) {
  TensorType t = in(ctx, 0);
  if (t.rank() != 2) fail(ctx, "input must be a matrix (rank 2), got " + t.str());
  if (const nlohmann::json *d = ctx.attr("dtype")) {
    std::optional<DType> dt;
    if (d->is_string()) dt = parse_dtype(d->get<std::string>());
    else if (d->is_number_integer()) dt = dtype_from_onnx(d->get<long long>());
    if (!dt) fail(ctx, "attribute 'dtype' names element type " + d->dump() + ", which Atoll does not support");
    t.dtype = *dt;
  }
  return {t};
}

/// output(r, c) = 1 where c - r == k, else 0; the input gives only the shape.
OpDefinition define_eyelike(const OpContext &ctx) {
  return {"output(i0, i1) = i1 - i0 == " + num(static_cast<double>(ctx.attr_int("k", 0))) + " ? 1 : 0", {"input"},
          {"output"}};
}

// ---- OneHot --------------------------------------------------------------------

/// The depth (a constant input, or the attribute of that name) and the
/// position of the new axis in the output.
std::pair<std::int64_t, int> onehot_plan(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "depth");
  if (!ctx.attr("depth")) fail(ctx, "'depth' is required");
  std::int64_t depth = ctx.attr_int("depth", 0);
  if (depth < 1) fail(ctx, "depth must be positive, got " + std::to_string(depth));
  const TensorType &I = in(ctx, 0), &V = in(ctx, 2);
  require_numeric(ctx, I, "indices");
  if (V.rank() != 1 || V.shape[0] != Dim(2)) fail(ctx, "values must hold two values [off, on], got " + V.str());
  return {depth, norm_axis(ctx, ctx.attr_int("axis", -1), I.rank() + 1, "axis")};
}

std::vector<TensorType> infer_onehot(const OpContext &ctx) {
  auto [depth, axis] = onehot_plan(ctx);
  TensorType t{in(ctx, 2).dtype, in(ctx, 0).shape};
  t.shape.insert(t.shape.begin() + axis, Dim(depth));
  return {t};
}

/// output(.., d, ..) = values(1) where the index (negative counts from the
/// end; a float truncates toward zero) equals d, values(0) elsewhere; an
/// index out of range matches no position.
OpDefinition define_onehot(const OpContext &ctx) {
  auto [depth, axis] = onehot_plan(ctx);
  const TensorType &I = in(ctx, 0);
  std::vector<std::string> idx = index_names(I.rank() + 1), is = idx;
  is.erase(is.begin() + axis);
  std::string at = call("indices", is);
  if (!is_integer(I.dtype)) at = "(" + at + " < 0 ? -floor(-" + at + ") : floor(" + at + "))";
  std::string d = std::to_string(depth);
  return {call("output", idx) + " = (" + at + " < 0 ? " + at + " + " + d + " : " + at + ") == " + idx[axis] +
              " ? values(1) : values(0)",
          in_names(ctx, {"indices", "depth", "values"}), {"output"}};
}

std::int64_t no_flops(const OpContext &) { return 0; }

}  // namespace

std::vector<OpInfo> movement_ops() {
  return {
      OpInfo{"Transpose", PatternKind::Injective, 1, 1, 1, 1, {{"perm", AttrKind::Ints}}, {}, infer_transpose, no_flops,
             define_transpose},
      OpInfo{"Reshape", PatternKind::Injective, 1, 2, 1, 1, {{"shape", AttrKind::Ints}, {"allowzero", AttrKind::Int}},
             {{1, "shape"}}, infer_reshape, no_flops, define_reshape},
      OpInfo{"Flatten", PatternKind::Injective, 1, 1, 1, 1, {{"axis", AttrKind::Int}}, {}, infer_flatten, no_flops,
             define_flatten},
      OpInfo{"Squeeze", PatternKind::Injective, 1, 2, 1, 1, {{"axes", AttrKind::Ints}}, {{1, "axes"}}, infer_squeeze,
             no_flops, define_squeeze},
      OpInfo{"Unsqueeze", PatternKind::Injective, 1, 2, 1, 1, {{"axes", AttrKind::Ints}}, {{1, "axes"}}, infer_unsqueeze,
             no_flops, define_unsqueeze},
      OpInfo{"Expand", PatternKind::Injective, 1, 2, 1, 1, {{"shape", AttrKind::Ints}}, {{1, "shape"}}, infer_expand,
             no_flops, define_expand},
      OpInfo{"Tile", PatternKind::Injective, 1, 2, 1, 1, {{"repeats", AttrKind::Ints}}, {{1, "repeats"}}, infer_tile,
             no_flops, define_tile},
      OpInfo{"DepthToSpace", PatternKind::Injective, 1, 1, 1, 1, {{"blocksize", AttrKind::Int}, {"mode", AttrKind::String}},
             {}, infer_blocks, no_flops, define_blocks},
      OpInfo{"SpaceToDepth", PatternKind::Injective, 1, 1, 1, 1, {{"blocksize", AttrKind::Int}, {"mode", AttrKind::String}},
             {}, infer_blocks, no_flops, define_blocks},
      OpInfo{"EyeLike", PatternKind::Injective, 1, 1, 1, 1, {{"k", AttrKind::Int}, {"dtype", AttrKind::DType}}, {},
             infer_eyelike, no_flops, define_eyelike},
      OpInfo{"OneHot", PatternKind::Injective, 3, 3, 1, 1, {{"axis", AttrKind::Int}, {"depth", AttrKind::Int}},
             {{1, "depth"}}, infer_onehot, no_flops, define_onehot},
      OpInfo{"Trilu", PatternKind::Injective, 1, 2, 1, 1, {{"upper", AttrKind::Int}, {"k", AttrKind::Int}}, {{1, "k"}},
             infer_trilu, no_flops, define_trilu},
  };
}

}  // namespace atl::ops
