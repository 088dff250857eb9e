// Reference MaxPool, AveragePool (pads, strides, dilations, ceil_mode,
// count_include_pad, auto_pad), LpPool and the global pools.
#include "src/reference/reference_internal.h"

#include <cmath>
#include <limits>

namespace atl::reference::detail {

namespace {

/// Output geometry of a pool; shape is [N, C, out...].
struct PoolSetup {
  WindowAttrs w;
  Shape in, out_shape;
  Geometry3 g;
  std::int64_t pad_end[3] = {0, 0, 0};  ///< end pads in Geometry3's padded order
};

PoolSetup setup_pool(const OpArgs &a, const Tensor &X) {
  if (X.rank() < 3) a.fail("X must have rank 3 or more (N, C, spatial...), got " + shape_to_string(X.shape));
  PoolSetup s;
  s.in.assign(X.shape.begin() + 2, X.shape.end());
  s.w = read_window(a, s.in, {}, true);
  // ceil_mode applies to explicit pads; VALID keeps only full windows and
  // SAME gives ceil(in / stride) outputs either way.
  bool ceil_mode = a.attr_int("ceil_mode", 0) != 0 && s.w.auto_pad == "NOTSET";
  s.out_shape = {X.shape[0], X.shape[1]};
  for (std::size_t i = 0; i < s.in.size(); ++i) {
    std::int64_t stride = s.w.strides[i], begin = s.w.pad_begin(i);
    std::int64_t span = s.in[i] + begin + s.w.pad_end(i) - s.w.extent(i);
    if (span < 0) a.fail("the dilated kernel is larger than the padded input in spatial dim " + std::to_string(i));
    std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    // ONNX (as PyTorch): with ceil_mode, a last window that would start in
    // the end padding is dropped.
    if (ceil_mode && (out - 1) * stride >= s.in[i] + begin) --out;
    s.out_shape.push_back(out);
  }
  s.g = make_geometry3(a, s.in, Shape(s.out_shape.begin() + 2, s.out_shape.end()), s.w);
  std::size_t shift = 3 - s.in.size();
  for (std::size_t i = 0; i < s.in.size(); ++i) s.pad_end[shift + i] = s.w.pad_end(i);
  return s;
}

/// Visits every (n, c, output position) of a pool with the window's element
/// positions: f(o, visit) where visit(cb) calls cb(in_range, x_offset, pos)
/// for each kernel element; pos holds its three (padded-order) coordinates.
template <class F>
void for_each_window(const Tensor &X, const PoolSetup &s, F f) {
  const Geometry3 &g = s.g;
  std::int64_t planes = X.shape[0] * X.shape[1], in_size = g.in[0] * g.in[1] * g.in[2];
  std::int64_t o = 0;
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t od = 0; od < g.out[0]; ++od)
      for (std::int64_t oh = 0; oh < g.out[1]; ++oh)
        for (std::int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
          std::int64_t start[3] = {od * g.stride[0] - g.pad[0], oh * g.stride[1] - g.pad[1], ow * g.stride[2] - g.pad[2]};
          auto visit = [&](auto cb) {
            for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd)
              for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh)
                for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                  std::int64_t pos[3] = {start[0] + kd * g.dilation[0], start[1] + kh * g.dilation[1],
                                         start[2] + kw * g.dilation[2]};
                  bool inside = true;
                  for (int d = 0; d < 3; ++d) inside = inside && pos[d] >= 0 && pos[d] < g.in[d];
                  std::int64_t off = inside ? p * in_size + (pos[0] * g.in[1] + pos[1]) * g.in[2] + pos[2] : -1;
                  cb(inside, off, pos);
                }
          };
          f(o, visit);
        }
}

std::vector<Tensor> op_max_pool(const OpArgs &a) {
  if (a.num_outputs() > 1) a.fail("the optional Indices output is not supported");
  // storage_order only affects Indices, so it is ignored here.
  const Tensor &X = a.input(0);
  PoolSetup s = setup_pool(a, X);
  Tensor out = a.make_output(0, s.out_shape);
  for_each_window(X, s, [&](std::int64_t o, auto visit) {
    // Padding never wins; a window that covers no input element gives -inf.
    double m = -std::numeric_limits<double>::infinity();
    visit([&](bool inside, std::int64_t off, const std::int64_t *) {
      if (!inside) return;
      double x = X.get(off);
      if (std::isnan(x) || std::isnan(m)) m = NAN;
      else if (x > m) m = x;
    });
    out.set(o, m);
  });
  return {std::move(out)};
}

std::vector<Tensor> op_average_pool(const OpArgs &a) {
  const Tensor &X = a.input(0);
  PoolSetup s = setup_pool(a, X);
  bool include_pad = a.attr_int("count_include_pad", 0) != 0;
  Tensor out = a.make_output(0, s.out_shape);
  for_each_window(X, s, [&](std::int64_t o, auto visit) {
    double sum = 0;
    std::int64_t count = 0;
    visit([&](bool inside, std::int64_t off, const std::int64_t *pos) {
      if (inside) {
        sum += X.get(off);
        ++count;
        return;
      }
      // count_include_pad counts the declared pads, but not the part of a
      // ceil_mode window that lies past the end padding.
      if (!include_pad) return;
      bool in_padded = true;
      for (int d = 0; d < 3; ++d) in_padded = in_padded && pos[d] >= -s.g.pad[d] && pos[d] < s.g.in[d] + s.pad_end[d];
      if (in_padded) ++count;
    });
    out.set(o, sum / static_cast<double>(count));  // an all-padding window excluded from the count is 0/0 = NaN
  });
  return {std::move(out)};
}

/// LpPool: (sum over the window of |x|^p)^(1/p); pads count as zeros.
std::vector<Tensor> op_lp_pool(const OpArgs &a) {
  const Tensor &X = a.input(0);
  std::int64_t p = a.attr_int("p", 2);
  if (p < 1) a.fail("p must be a positive integer, got " + std::to_string(p));
  PoolSetup s = setup_pool(a, X);
  Tensor out = a.make_output(0, s.out_shape);
  for_each_window(X, s, [&](std::int64_t o, auto visit) {
    double sum = 0;
    visit([&](bool inside, std::int64_t off, const std::int64_t *) {
      if (inside) sum += std::pow(std::fabs(X.get(off)), static_cast<double>(p));
    });
    out.set(o, std::pow(sum, 1.0 / static_cast<double>(p)));
  });
  return {std::move(out)};
}

/// Reduces every (n, c) plane over all spatial dims; output [N, C, 1, ...].
template <class Reduce>
std::vector<Tensor> global_pool(const OpArgs &a, Reduce reduce) {
  const Tensor &X = a.input(0);
  if (X.rank() < 3) a.fail("X must have rank 3 or more (N, C, spatial...), got " + shape_to_string(X.shape));
  Shape out_shape(X.shape.size(), 1);
  out_shape[0] = X.shape[0];
  out_shape[1] = X.shape[1];
  Tensor out = a.make_output(0, out_shape);
  std::int64_t plane = dims_product(X.shape, 2, X.rank());
  if (plane == 0) a.fail("X has an empty spatial extent " + shape_to_string(X.shape));
  for (std::int64_t p = 0; p < out.numel(); ++p) out.set(p, reduce(X.data.data() + p * plane, plane));
  return {std::move(out)};
}

std::vector<Tensor> op_global_average_pool(const OpArgs &a) {
  return global_pool(a, [](const double *v, std::int64_t n) {
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += v[i];
    return sum / static_cast<double>(n);
  });
}

std::vector<Tensor> op_global_max_pool(const OpArgs &a) {
  return global_pool(a, [](const double *v, std::int64_t n) {
    double m = v[0];
    for (std::int64_t i = 0; i < n; ++i) m = (std::isnan(m) || std::isnan(v[i])) ? NAN : std::max(m, v[i]);
    return m;
  });
}

}  // namespace

const OpTable &pool_ops() {
  static const OpTable table = {{"MaxPool", op_max_pool},
                                {"AveragePool", op_average_pool},
                                {"LpPool", op_lp_pool},
                                {"GlobalAveragePool", op_global_average_pool},
                                {"GlobalMaxPool", op_global_max_pool}};
  return table;
}

}  // namespace atl::reference::detail
