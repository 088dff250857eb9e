// Registry entry of Resize (opset 19): nearest and N-linear resampling over
// the resized axes, with every coordinate transformation but
// tf_crop_and_resize. Source coordinates are exact rationals, so that the
// definition's integer subscripts and the reference agree at every tie.
#include "graph/ir/ops/ops_util.h"

#include <cmath>
#include <numeric>

namespace atl::ops {
namespace {

/// An exact fraction n / d (d > 0, reduced); arithmetic that leaves int64
/// is an error of the node (a scale too fine for exact coordinates).
struct Frac {
  std::int64_t n = 0, d = 1;
};

Frac make_frac(const OpContext &ctx, __int128 n, __int128 d) {
  if (d < 0) n = -n, d = -d;
  __int128 a = n < 0 ? -n : n, b = d;
  while (b) {
    __int128 t = a % b;
    a = b;
    b = t;
  }
  if (a > 1) n /= a, d /= a;
  const __int128 lim = INT64_MAX;
  if (n > lim || n < -lim || d > lim) fail(ctx, "the resize coordinates are too fine-grained to compute exactly");
  return {static_cast<std::int64_t>(n), static_cast<std::int64_t>(d)};
}
using Wide = __int128;
Frac add(const OpContext &c, Frac a, Frac b) { return make_frac(c, Wide(a.n) * b.d + Wide(b.n) * a.d, Wide(a.d) * b.d); }
Frac sub(const OpContext &c, Frac a, Frac b) { return add(c, a, {-b.n, b.d}); }
Frac mul(const OpContext &c, Frac a, Frac b) { return make_frac(c, Wide(a.n) * b.n, Wide(a.d) * b.d); }
Frac divide(const OpContext &c, Frac a, Frac b) { return make_frac(c, Wide(a.n) * b.d, Wide(a.d) * b.n); }
bool less(Frac a, Frac b) { return Wide(a.n) * b.d < Wide(b.n) * a.d; }

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// A scale as a fraction: the one with the smallest denominator (up to
/// 2^16) that rounds to the same f32 (ONNX's scales are f32), so 0.6 is
/// 3/5; otherwise the f32 value exactly.
Frac scale_fraction(const OpContext &ctx, double s) {
  float f = static_cast<float>(s);
  for (std::int64_t q = 1; q <= 65536; ++q) {
    double p = std::nearbyint(static_cast<double>(f) * static_cast<double>(q));
    if (p >= 1 && static_cast<float>(p / static_cast<double>(q)) == f)
      return make_frac(ctx, static_cast<std::int64_t>(p), q);
  }
  // Not a simple fraction, so f < 2^24 (larger floats are integers): f = m / 2^(24 - e).
  int e = 0;
  double m = std::frexp(static_cast<double>(f), &e);  // f = m * 2^e, m in [0.5, 1)
  if (e > 24) fail(ctx, "scale " + num(s) + " is too large");
  return make_frac(ctx, static_cast<std::int64_t>(std::ldexp(m, 24)), static_cast<__int128>(1) << (24 - e));
}

/// One axis: x_original = (a * x_resized + b) held as (A * x + B) / D.
struct AxisPlan {
  bool resized = false;
  std::int64_t in = 0, out = 0;
  std::int64_t A = 0, B = 0, D = 1;
};

struct ResizePlan {
  bool linear = false;
  std::string nearest_mode;
  std::vector<AxisPlan> axes;
};

void no_runtime_input(const OpContext &ctx, int slot, const char *attr) {
  if (has_input(ctx, slot))
    fail(ctx, std::string("'") + attr + "' must be a constant: give it as inline data or as the attribute");
}

ResizePlan resize_plan(const OpContext &ctx) {
  no_runtime_input(ctx, 1, "roi");
  no_runtime_input(ctx, 2, "scales");
  no_runtime_input(ctx, 3, "sizes");
  const TensorType &X = in(ctx, 0);
  require_float(ctx, X, "X");
  require_rank_at_least(ctx, X, 1, "X");
  if (ctx.node.outputs.size() > 1) fail(ctx, "has exactly one output");
  ResizePlan p;
  std::string mode = ctx.attr_string("mode", "nearest");
  if (mode == "cubic") fail(ctx, "mode 'cubic' is not supported (nearest and linear are)");
  if (mode != "nearest" && mode != "linear") fail(ctx, "mode must be nearest or linear, not '" + mode + "'");
  p.linear = mode == "linear";
  std::string ctm = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize")
    fail(ctx, "coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  if (ctm != "half_pixel" && ctm != "half_pixel_symmetric" && ctm != "pytorch_half_pixel" && ctm != "align_corners" &&
      ctm != "asymmetric")
    fail(ctx, "coordinate_transformation_mode must be half_pixel, half_pixel_symmetric, pytorch_half_pixel, "
              "align_corners or asymmetric, not '" + ctm + "'");
  p.nearest_mode = ctx.attr_string("nearest_mode", "round_prefer_floor");
  if (p.nearest_mode != "round_prefer_floor" && p.nearest_mode != "round_prefer_ceil" && p.nearest_mode != "floor" &&
      p.nearest_mode != "ceil")
    fail(ctx, "nearest_mode must be round_prefer_floor, round_prefer_ceil, floor or ceil, not '" + p.nearest_mode +
                  "'");
  if (ctx.attr_int("exclude_outside", 0) != 0)
    fail(ctx, "exclude_outside=1 is not supported (it matters for cubic only)");
  if (ctx.attr_int("antialias", 0) != 0) fail(ctx, "antialias=1 is not supported");
  std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    fail(ctx, "keep_aspect_ratio_policy must be stretch, not_larger or not_smaller, not '" + policy + "'");

  int r = X.rank();
  std::vector<std::int64_t> all;
  for (int i = 0; i < r; ++i) all.push_back(i);
  std::vector<int> axes = norm_axes(ctx, ctx.attr_ints("axes", all), r, "axes");
  std::vector<double> scales = ctx.attr_floats("scales", {});
  std::vector<std::int64_t> sizes = ctx.attr_ints("sizes", {});
  if (scales.empty() == sizes.empty()) fail(ctx, "give exactly one of 'scales' and 'sizes'");
  std::size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size())
    fail(ctx, std::string(scales.empty() ? "sizes" : "scales") + " has " + std::to_string(given) + " entries for " +
                  std::to_string(axes.size()) + " axes");

  p.axes.resize(static_cast<std::size_t>(r));
  std::vector<Frac> scale(static_cast<std::size_t>(r), Frac{1, 1});
  for (int a = 0; a < r; ++a) p.axes[a].in = p.axes[a].out = X.shape[a].is_symbolic() ? 0 : X.shape[a].value;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    int a = axes[k];
    std::string what = "axis " + std::to_string(a);
    if (!scales.empty()) {
      if (!(scales[k] > 0) || !std::isfinite(scales[k]))
        fail(ctx, "scales must be positive, got " + num(scales[k]) + " for " + what);
      Frac s = scale_fraction(ctx, scales[k]);
      if (s.n == s.d) continue;  // scale 1: the axis passes through, symbolic or not
      std::int64_t I = concrete(ctx, X.shape[a], "resizing it");
      scale[a] = s;
      Frac o = mul(ctx, Frac{I, 1}, s);
      p.axes[a].out = floor_div(o.n, o.d);
      if (p.axes[a].out < 1)
        fail(ctx, "scale " + num(scales[k]) + " leaves " + what + " of size " + std::to_string(I) + " empty");
    } else {
      if (sizes[k] < 1) fail(ctx, "sizes must be positive, got " + std::to_string(sizes[k]) + " for " + what);
      if (!X.shape[a].is_symbolic() && X.shape[a].value == sizes[k] && policy == "stretch") continue;
      std::int64_t I = concrete(ctx, X.shape[a], "resizing it");
      scale[a] = make_frac(ctx, sizes[k], I);
      p.axes[a].out = sizes[k];
    }
  }
  if (!sizes.empty() && policy != "stretch") {
    // One scale for every listed axis: the smallest (not_larger) or largest
    // (not_smaller) ratio; sizes round half up from it.
    Frac s = scale[axes[0]];
    for (int a : axes)
      if (policy == "not_larger" ? less(scale[a], s) : less(s, scale[a])) s = scale[a];
    for (int a : axes) {
      scale[a] = s;
      Frac o = add(ctx, mul(ctx, Frac{p.axes[a].in, 1}, s), Frac{1, 2});
      p.axes[a].out = floor_div(o.n, o.d);
      if (p.axes[a].out < 1)
        fail(ctx, "keep_aspect_ratio_policy " + policy + " leaves axis " + std::to_string(a) + " of size " +
                      std::to_string(p.axes[a].in) + " empty");
    }
  }
  for (int a = 0; a < r; ++a) {
    AxisPlan &ax = p.axes[a];
    const Frac &s = scale[a];
    if (s.n == s.d && ax.out == ax.in) continue;
    ax.resized = true;
    Frac inv = divide(ctx, Frac{1, 1}, s), half{1, 2}, ka{0, 1}, kb{0, 1};
    if (ctm == "align_corners") {
      // ONNX measures the resized length as in * scale, unrounded: with
      // scales 0.6 on 4 pixels, (4 - 1) / (2.4 - 1), not (4 - 1) / (2 - 1).
      Frac len = mul(ctx, Frac{ax.in, 1}, s);
      if (len.n != len.d) ka = divide(ctx, Frac{ax.in - 1, 1}, sub(ctx, len, Frac{1, 1}));
    } else if (ctm == "asymmetric") {
      ka = inv;
    } else if (ctm != "pytorch_half_pixel" || ax.out > 1) {
      ka = inv;
      kb = sub(ctx, mul(ctx, inv, half), half);  // (x + 1/2) / s - 1/2
      if (ctm == "half_pixel_symmetric") {
        // offset = in / 2 * (1 - out / (s * in))
        Frac adjustment = divide(ctx, Frac{ax.out, 1}, mul(ctx, s, Frac{ax.in, 1}));
        kb = add(ctx, kb, mul(ctx, Frac{ax.in, 2}, sub(ctx, Frac{1, 1}, adjustment)));
      }
    }
    __int128 D = static_cast<__int128>(ka.d / std::gcd(ka.d, kb.d)) * kb.d;
    if (D > INT64_MAX / 4) fail(ctx, "the resize coordinates are too fine-grained to compute exactly");
    ax.D = static_cast<std::int64_t>(D);
    ax.A = ka.n * (ax.D / ka.d);
    ax.B = kb.n * (ax.D / kb.d);
  }
  return p;
}

/// "floor((A * v + B) / D)" (a constant when A is 0).
std::string floor_text(std::int64_t A, std::int64_t B, std::int64_t D, const std::string &v) {
  if (A == 0) return std::to_string(floor_div(B, D));
  std::int64_t g = std::gcd(std::gcd(A, B), D);
  A /= g, B /= g, D /= g;
  std::string n = Affine().add(v, A).plus(B).str();
  return D == 1 ? n : "floor((" + n + ") / " + std::to_string(D) + ")";
}

std::vector<TensorType> infer_resize(const OpContext &ctx) {
  ResizePlan p = resize_plan(ctx);
  TensorType t = in(ctx, 0);
  for (std::size_t a = 0; a < p.axes.size(); ++a)
    if (p.axes[a].resized) t.shape[a] = Dim(p.axes[a].out);
  return {t};
}

std::int64_t flops_resize(const OpContext &ctx) {
  ResizePlan p = resize_plan(ctx);
  if (!p.linear) return 0;
  std::int64_t corners = 1;
  for (const AxisPlan &a : p.axes)
    if (a.resized) corners *= 2;
  return elements(ctx.outputs[0].shape) * 3 * (corners - 1);  // one lerp (3 FLOPs) per pair of corners
}

/// Per resized axis `a`, a table r_a(k) = min(max(k - P, 0), in - 1) gives
/// the clamped source index as an exact value (edge padding at both ends);
/// the output reads X through it (an indirect subscript), or directly at
/// the quasi-affine index when no output position needs clamping.
/// Nearest rounds x_original by nearest_mode; linear reads floor(x) and
/// floor(x) + 1 of each resized axis, weighted by w_a = x - floor(x).
OpDefinition define_resize(const OpContext &ctx) {
  ResizePlan p = resize_plan(ctx);
  int r = static_cast<int>(p.axes.size());
  std::vector<std::string> idx = index_names(r);
  std::string text;
  // Per axis: the subscript of tap 0 and tap 1 (linear), and the weight of tap 1.
  std::vector<std::string> tap0(idx), tap1(idx), weight(r);
  for (int a = 0; a < r; ++a) {
    const AxisPlan &ax = p.axes[a];
    if (!ax.resized) continue;
    const std::string &v = idx[a];
    // The source index as floor((A' v + B') / D'); nearest modes round x.
    std::int64_t A = ax.A, B = ax.B, D = ax.D;
    if (!p.linear) {
      if (p.nearest_mode == "ceil") B += D - 1;
      else if (p.nearest_mode == "round_prefer_floor") A *= 2, B = 2 * B + D - 1, D *= 2;
      else if (p.nearest_mode == "round_prefer_ceil") A *= 2, B = 2 * B + D, D *= 2;
    }
    int taps = p.linear ? 2 : 1;
    // A >= 0, so the index is smallest at v = 0 and largest at v = out - 1.
    std::int64_t lo = floor_div(B, D), hi = floor_div(A * (ax.out - 1) + B, D) + taps - 1;
    bool clamp = lo < 0 || hi > ax.in - 1;
    std::int64_t P = lo < 0 ? -lo : 0;
    std::string table = "r" + std::to_string(a);
    if (clamp || p.linear) {
      std::string k = "k - " + std::to_string(P);
      if (P == 0) k = "k";
      text += call(table, {"k"}) + " = " + (clamp ? "min(max(" + k + ", 0), " + std::to_string(ax.in - 1) + ")" : k) +
              " where k in 0:" + std::to_string(hi + P + 1) + "\n";
    }
    auto tap = [&](std::int64_t t) {
      if (!clamp) return floor_text(A, B + t * D, D, v);
      return call(table, {floor_text(A, B + (P + t) * D, D, v)});
    };
    tap0[a] = tap(0);
    if (p.linear) {
      tap1[a] = tap(1);
      std::string x = "(" + Affine().add(v, A).plus(B).str() + ") / " + std::to_string(D);
      weight[a] = call("w" + std::to_string(a), {v});
      text += weight[a] + " = " + x + " - " + call(table, {floor_text(A, B + P * D, D, v)}) + " where " + v +
              " in 0:" + std::to_string(ax.out) + "\n";
    }
  }
  std::string rhs;
  if (!p.linear) {
    rhs = call("X", tap0);
  } else {
    std::vector<int> resized;
    for (int a = 0; a < r; ++a)
      if (p.axes[a].resized) resized.push_back(a);
    for (std::size_t corner = 0; corner < (std::size_t{1} << resized.size()); ++corner) {
      std::vector<std::string> subs = tap0;
      std::string term;
      for (std::size_t b = 0; b < resized.size(); ++b) {
        int a = resized[b];
        bool upper = (corner >> b) & 1;
        if (upper) subs[a] = tap1[a];
        term += (upper ? weight[a] : "(1 - " + weight[a] + ")") + " * ";
      }
      rhs += (rhs.empty() ? "" : " + ") + term + call("X", subs);
    }
  }
  // Indices of resized axes read X only through the tables: their ranges
  // are the output's.
  std::vector<std::pair<std::string, std::int64_t>> where;
  for (int a = 0; a < r; ++a)
    if (p.axes[a].resized) where.push_back({idx[a], p.axes[a].out});
  text += call("Y", idx) + " = " + rhs;
  if (!where.empty()) text += " where " + where_clause(where);
  return {text, in_names(ctx, {"X", "roi", "scales", "sizes"}), {"Y"}};
}

}  // namespace

std::vector<OpInfo> resize_ops() {
  return {
      OpInfo{"Resize", PatternKind::Injective, 1, 4, 1, 1,
             {{"mode", AttrKind::String}, {"coordinate_transformation_mode", AttrKind::String},
              {"nearest_mode", AttrKind::String}, {"exclude_outside", AttrKind::Int},
              {"extrapolation_value", AttrKind::Float}, {"cubic_coeff_a", AttrKind::Float},
              {"antialias", AttrKind::Int}, {"axes", AttrKind::Ints}, {"keep_aspect_ratio_policy", AttrKind::String},
              {"roi", AttrKind::Floats}, {"scales", AttrKind::Floats}, {"sizes", AttrKind::Ints}},
             {{1, "roi"}, {2, "scales"}, {3, "sizes"}}, infer_resize, flops_resize, define_resize},
  };
}

}  // namespace atl::ops
