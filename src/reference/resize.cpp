// Reference Resize (opset 19): nearest and N-linear resampling with edge
// clamping, source coordinates computed with exact fractions from the ONNX
// formulas (no tf_crop_and_resize, cubic or antialias).
#include "src/reference/reference_internal.h"

#include <cmath>

namespace atl::reference::detail {

namespace {

/// An exact fraction n / d, d > 0, reduced.
struct Q {
  __int128 n = 0, d = 1;
};

__int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  while (b) {
    __int128 t = a % b;
    a = b;
    b = t < 0 ? -t : t;
  }
  return a;
}

Q q(__int128 n, __int128 d) {
  if (d < 0) n = -n, d = -d;
  __int128 g = gcd128(n, d);
  if (g > 1) n /= g, d /= g;
  return {n, d};
}
Q operator+(Q a, Q b) { return q(a.n * b.d + b.n * a.d, a.d * b.d); }
Q operator-(Q a, Q b) { return q(a.n * b.d - b.n * a.d, a.d * b.d); }
Q operator*(Q a, Q b) { return q(a.n * b.n, a.d * b.d); }
Q operator/(Q a, Q b) { return q(a.n * b.d, a.d * b.n); }
bool operator<(Q a, Q b) { return a.n * b.d < b.n * a.d; }
std::int64_t floor_of(Q a) {
  __int128 f = a.n / a.d;
  if (a.n % a.d != 0 && a.n < 0) --f;
  return static_cast<std::int64_t>(f);
}

/// ONNX's scales are f32: the scale is the fraction with the smallest
/// denominator (up to 2^16) that rounds to the same f32, else that f32 exactly.
Q scale_of(double s) {
  float f = static_cast<float>(s);
  for (std::int64_t d = 1; d <= 65536; ++d) {
    double n = std::nearbyint(static_cast<double>(f) * static_cast<double>(d));
    if (n >= 1 && static_cast<float>(n / static_cast<double>(d)) == f) return q(static_cast<__int128>(n), d);
  }
  int e = 0;
  double m = std::frexp(static_cast<double>(f), &e);
  return q(static_cast<__int128>(std::ldexp(m, 24)), static_cast<__int128>(1) << (24 - e));
}

/// A constant list input: the attribute `name` or the values of input `slot`.
std::vector<double> const_list(const OpArgs &a, const char *name, std::size_t slot) {
  std::vector<double> out;
  if (a.has_attr(name)) {
    const nlohmann::json &v = a.node().attrs.at(name);
    if (v.is_number()) return {v.get<double>()};
    for (const auto &e : v) out.push_back(e.get<double>());
  } else if (const Tensor *t = a.optional_input(slot)) {
    out = t->data;
  }
  return out;
}

std::vector<Tensor> op_resize(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int r = X.rank();
  std::string mode = a.attr_string("mode", "nearest");
  std::string ctm = a.attr_string("coordinate_transformation_mode", "half_pixel");
  std::string nearest = a.attr_string("nearest_mode", "round_prefer_floor");
  std::string policy = a.attr_string("keep_aspect_ratio_policy", "stretch");
  if (mode != "nearest" && mode != "linear") a.fail("mode '" + mode + "' is not supported (nearest and linear are)");
  if (ctm == "tf_crop_and_resize") a.fail("coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  if (a.attr_int("exclude_outside", 0) != 0 || a.attr_int("antialias", 0) != 0)
    a.fail("exclude_outside and antialias must be 0");
  std::vector<std::int64_t> all;
  for (int d = 0; d < r; ++d) all.push_back(d);
  std::vector<std::int64_t> axes = a.attr_ints("axes", all);
  for (std::int64_t &ax : axes) ax = normalize_axis(a, ax, r);
  std::vector<double> scales = const_list(a, "scales", 2), sizes = const_list(a, "sizes", 3);
  if (scales.empty() == sizes.empty()) a.fail("exactly one of scales and sizes must be given");
  std::vector<double> &given = scales.empty() ? sizes : scales;
  if (given.size() != axes.size()) a.fail("scales or sizes must have one entry per axis in 'axes'");

  // Per axis: the scale and the output size (ONNX: floor(in * scale), or sizes).
  std::vector<Q> scale(static_cast<std::size_t>(r), Q{1, 1});
  Shape out_shape = X.shape;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::int64_t ax = axes[k], in = X.shape[ax];
    if (!scales.empty()) {
      if (!(scales[k] > 0)) a.fail("scales must be positive");
      scale[ax] = scale_of(scales[k]);
      out_shape[ax] = floor_of(Q{in, 1} * scale[ax]);
    } else {
      if (sizes[k] < 1) a.fail("sizes must be positive");
      scale[ax] = q(static_cast<__int128>(sizes[k]), in);
      out_shape[ax] = static_cast<std::int64_t>(sizes[k]);
    }
    if (out_shape[ax] < 1) a.fail("an output axis would be empty");
  }
  if (!sizes.empty() && policy != "stretch") {
    if (policy != "not_larger" && policy != "not_smaller")
      a.fail("keep_aspect_ratio_policy '" + policy + "' is unknown");
    Q s = scale[axes[0]];
    for (std::int64_t ax : axes)
      if (policy == "not_larger" ? scale[ax] < s : s < scale[ax]) s = scale[ax];
    for (std::int64_t ax : axes) {
      scale[ax] = s;
      out_shape[ax] = floor_of(Q{X.shape[ax], 1} * s + Q{1, 2});  // round half up
      if (out_shape[ax] < 1) a.fail("an output axis would be empty");
    }
  }
  Tensor out = a.make_output(0, out_shape);

  // Per axis and output coordinate: the two source indices (clamped to the
  // axis: edge padding) and the weight of the second.
  struct Taps {
    std::vector<std::int64_t> lo, hi;
    std::vector<double> w;
  };
  std::vector<Taps> taps(static_cast<std::size_t>(r));
  const Q half{1, 2};
  for (int d = 0; d < r; ++d) {
    std::int64_t in = X.shape[d], len = out_shape[d];
    const Q &s = scale[d];
    Taps &t = taps[d];
    for (std::int64_t o = 0; o < len; ++o) {
      Q x{o, 1}, xr{o, 1};
      if (ctm == "half_pixel") {
        x = (xr + half) / s - half;
      } else if (ctm == "half_pixel_symmetric") {
        Q adjustment = Q{len, 1} / (s * Q{in, 1});
        Q center = Q{in, 2};
        Q offset = center * (Q{1, 1} - adjustment);
        x = offset + (xr + half) / s - half;
      } else if (ctm == "pytorch_half_pixel") {
        x = len > 1 ? (xr + half) / s - half : Q{0, 1};
      } else if (ctm == "align_corners") {
        // the resized length is in * scale, unrounded (ONNX's reference)
        Q resized = s * Q{in, 1};
        x = resized.n == resized.d ? Q{0, 1} : xr * Q{in - 1, 1} / (resized - Q{1, 1});
      } else if (ctm == "asymmetric") {
        x = xr / s;
      } else {
        a.fail("coordinate_transformation_mode '" + ctm + "' is unknown");
      }
      std::int64_t i = floor_of(x);
      Q frac = x - Q{i, 1};
      auto clamp = [&](std::int64_t v) { return std::min(std::max<std::int64_t>(v, 0), in - 1); };
      if (mode == "nearest") {
        bool up = false;
        if (nearest == "round_prefer_floor") up = half < frac;
        else if (nearest == "round_prefer_ceil") up = !(frac < half);
        else if (nearest == "ceil") up = frac.n != 0;
        else if (nearest != "floor") a.fail("nearest_mode '" + nearest + "' is unknown");
        t.lo.push_back(clamp(up ? i + 1 : i));
        t.hi.push_back(t.lo.back());
        t.w.push_back(0);
      } else {
        t.lo.push_back(clamp(i));
        t.hi.push_back(clamp(i + 1));
        t.w.push_back(static_cast<double>(frac.n) / static_cast<double>(frac.d));
      }
    }
  }
  std::vector<std::int64_t> strides = shape_strides(X.shape), index(static_cast<std::size_t>(r), 0);
  for (std::int64_t e = 0; e < out.numel(); ++e) {
    // N-linear: the sum over the 2^r corners (nearest: every corner is the
    // same element and the weights 1 and 0).
    double sum = 0;
    for (std::int64_t corner = 0; corner < (std::int64_t{1} << r); ++corner) {
      double weight = 1;
      std::int64_t off = 0;
      for (int d = 0; d < r; ++d) {
        const Taps &t = taps[d];
        bool upper = (corner >> d) & 1;
        double w = t.w[index[d]];
        weight *= upper ? w : 1 - w;
        off += (upper ? t.hi[index[d]] : t.lo[index[d]]) * strides[d];
      }
      if (weight != 0) sum += weight * X.get(off);
    }
    out.set(e, sum);
    next_index(index, out_shape);
  }
  return {std::move(out)};
}

}  // namespace

const OpTable &resize_ops() {
  static const OpTable table = {{"Resize", op_resize}};
  return table;
}

}  // namespace atl::reference::detail
