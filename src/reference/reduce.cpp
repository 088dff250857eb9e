// Reference reductions ReduceSum, ReduceMean, ReduceMax, ReduceMin and
// ReduceProd (opset 18: axes, keepdims, noop_with_empty_axes), ArgMax and
// ArgMin (axis, keepdims, select_last_index).
#include "src/reference/reference_internal.h"

#include <cmath>
#include <limits>

namespace atl::reference::detail {

namespace {

enum class Kind { Sum, Mean, Max, Min, Prod };

std::vector<Tensor> reduce(const OpArgs &a, Kind kind) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  std::vector<std::int64_t> axes = a.const_ints("axes", 1).value_or(std::vector<std::int64_t>{});
  bool keepdims = a.attr_int("keepdims", 1) != 0;
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  if (axes.empty()) {
    if (a.attr_int("noop_with_empty_axes", 0) != 0) {
      Tensor out = a.make_output(0, X.shape);
      for (std::int64_t i = 0; i < X.numel(); ++i) out.set(i, X.get(i));
      return {std::move(out)};
    }
    reduced.assign(reduced.size(), true);
  }
  for (std::int64_t ax : axes) {
    int d = normalize_axis(a, ax, rank);
    if (reduced[d]) a.fail("axis " + std::to_string(ax) + " appears twice in 'axes' " + ints_to_string(axes));
    reduced[d] = true;
  }
  Shape kept = X.shape, out_shape;  // kept: reduced dims as 1 (same linear order as out_shape)
  std::int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      count *= X.shape[d];
      kept[d] = 1;
      if (keepdims) out_shape.push_back(1);
    } else {
      out_shape.push_back(X.shape[d]);
    }
  }
  Tensor out = a.make_output(0, out_shape);
  const double inf = std::numeric_limits<double>::infinity();
  double init = kind == Kind::Prod ? 1.0 : kind == Kind::Max ? -inf : kind == Kind::Min ? inf : 0.0;
  std::vector<double> acc(static_cast<std::size_t>(out.numel()), init);
  std::vector<std::int64_t> strides = broadcast_strides(kept, X.shape), index(static_cast<std::size_t>(rank), 0);
  for (std::int64_t i = 0; i < X.numel(); ++i) {
    std::int64_t o = 0;
    for (int d = 0; d < rank; ++d) o += index[d] * strides[d];
    double &r = acc[static_cast<std::size_t>(o)];
    double x = X.get(i);
    switch (kind) {
    case Kind::Sum:
    case Kind::Mean: r += x; break;
    case Kind::Prod: r *= x; break;
    case Kind::Max: r = (std::isnan(r) || std::isnan(x)) ? NAN : std::max(r, x); break;
    case Kind::Min: r = (std::isnan(r) || std::isnan(x)) ? NAN : std::min(r, x); break;
    }
    next_index(index, X.shape);
  }
  for (std::int64_t o = 0; o < out.numel(); ++o) {
    double r = acc[static_cast<std::size_t>(o)];
    out.set(o, kind == Kind::Mean ? r / static_cast<double>(count) : r);
  }
  return {std::move(out)};
}

std::vector<Tensor> op_reduce_sum(const OpArgs &a) { return reduce(a, Kind::Sum); }
std::vector<Tensor> op_reduce_mean(const OpArgs &a) { return reduce(a, Kind::Mean); }
std::vector<Tensor> op_reduce_max(const OpArgs &a) { return reduce(a, Kind::Max); }
std::vector<Tensor> op_reduce_min(const OpArgs &a) { return reduce(a, Kind::Min); }
std::vector<Tensor> op_reduce_prod(const OpArgs &a) { return reduce(a, Kind::Prod); }

/// ArgMax and ArgMin: extreme_index along the axis (the last with
/// select_last_index).
std::vector<Tensor> arg_extreme(const OpArgs &a, bool max) {
  const Tensor &X = a.input(0);
  if (X.rank() == 0) a.fail("data must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", 0), X.rank());
  bool keepdims = a.attr_int("keepdims", 1) != 0, last = a.attr_int("select_last_index", 0) != 0;
  Shape out_shape;
  for (int d = 0; d < X.rank(); ++d) {
    if (d != axis) out_shape.push_back(X.shape[d]);
    else if (keepdims) out_shape.push_back(1);
  }
  Tensor out = a.make_output(0, out_shape);
  std::int64_t n = X.shape[axis], inner = dims_product(X.shape, axis + 1, X.rank()),
               outer = dims_product(X.shape, 0, axis);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i)
      out.set(o * inner + i, static_cast<double>(extreme_index(X, o * n * inner + i, n, inner, max, last)));
  return {std::move(out)};
}

std::vector<Tensor> op_arg_max(const OpArgs &a) { return arg_extreme(a, true); }
std::vector<Tensor> op_arg_min(const OpArgs &a) { return arg_extreme(a, false); }

}  // namespace

std::int64_t extreme_index(const Tensor &X, std::int64_t base, std::int64_t n, std::int64_t stride, bool max,
                           bool last) {
  std::int64_t best = 0;
  double v = X.get(base);
  for (std::int64_t k = 1; k < n; ++k) {
    double x = X.get(base + k * stride);
    bool better = std::isnan(v) ? last && std::isnan(x)
                  : std::isnan(x) ? true
                  : last          ? (max ? x >= v : x <= v)
                                  : (max ? x > v : x < v);
    if (better) best = k, v = x;
  }
  return best;
}

const OpTable &reduce_ops() {
  static const OpTable table = {{"ReduceSum", op_reduce_sum},
                                {"ReduceMean", op_reduce_mean},
                                {"ReduceMax", op_reduce_max},
                                {"ReduceMin", op_reduce_min},
                                {"ReduceProd", op_reduce_prod},
                                {"ArgMax", op_arg_max},
                                {"ArgMin", op_arg_min}};
  return table;
}

}  // namespace atl::reference::detail
