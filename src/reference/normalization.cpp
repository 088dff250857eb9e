// Reference normalizations: BatchNormalization (inference), LayerNormalization,
// RMSNormalization (opset 23), InstanceNormalization, Softmax, LogSoftmax and
// Hardmax (opset 13: one axis), LpNormalization, LRN.
#include "src/reference/reference_internal.h"

#include <cmath>

namespace atl::reference::detail {

namespace {

/// Checks that a per-channel operand has shape [C].
void check_channel_vector(const OpArgs &a, const Tensor &t, const char *name, std::int64_t C) {
  if (t.rank() != 1 || t.shape[0] != C)
    a.fail(std::string(name) + " must have shape [" + std::to_string(C) + "], got " + shape_to_string(t.shape));
}

std::vector<Tensor> op_batch_norm(const OpArgs &a) {
  if (a.attr_int("training_mode", 0) != 0) a.fail("training_mode=1 is not supported (inference form only)");
  if (a.num_outputs() != 1) a.fail("only the inference form with one output is supported");
  const Tensor &X = a.input(0), &scale = a.input(1), &B = a.input(2), &mean = a.input(3), &var = a.input(4);
  if (X.rank() < 2) a.fail("X must have rank 2 or more (N, C, ...), got " + shape_to_string(X.shape));
  std::int64_t C = X.shape[1];
  check_channel_vector(a, scale, "scale", C);
  check_channel_vector(a, B, "B", C);
  check_channel_vector(a, mean, "input_mean", C);
  check_channel_vector(a, var, "input_var", C);
  double eps = a.attr_float("epsilon", 1e-5);
  Tensor out = a.make_output(0, X.shape);
  std::int64_t inner = dims_product(X.shape, 2, X.rank());
  for (std::int64_t i = 0; i < X.numel(); ++i) {
    std::int64_t c = (i / inner) % C;
    out.set(i, (X.get(i) - mean.get(c)) / std::sqrt(var.get(c) + eps) * scale.get(c) + B.get(c));
  }
  return {std::move(out)};
}

std::vector<Tensor> op_layer_norm(const OpArgs &a) {
  const Tensor &X = a.input(0), &scale = a.input(1);
  const Tensor *B = a.optional_input(2);
  if (X.rank() == 0) a.fail("X must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", -1), X.rank());
  double eps = a.attr_float("epsilon", 1e-5);
  // Scale and B broadcast (numpy, unidirectionally) to X.
  auto strides_for = [&](const Tensor &t, const char *name) {
    if (t.rank() > X.rank() || broadcast_shapes(a, {t.shape, X.shape}) != X.shape)
      a.fail(std::string(name) + " of shape " + shape_to_string(t.shape) + " does not broadcast to X " +
             shape_to_string(X.shape));
    return broadcast_strides(t.shape, X.shape);
  };
  std::vector<std::int64_t> s_strides = strides_for(scale, "Scale"), b_strides;
  if (B) b_strides = strides_for(*B, "B");
  Tensor Y = a.make_output(0, X.shape);
  Shape stat_shape = X.shape;
  for (int d = axis; d < X.rank(); ++d) stat_shape[d] = 1;
  std::vector<Tensor> result;
  std::int64_t outer = dims_product(X.shape, 0, axis), inner = dims_product(X.shape, axis, X.rank());
  std::vector<double> means(static_cast<std::size_t>(outer)), inv_std(static_cast<std::size_t>(outer));
  std::vector<std::int64_t> index(X.shape.size(), 0);
  for (std::int64_t o = 0; o < outer; ++o) {
    const double *x = X.data.data() + o * inner;
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < inner; ++i) mean += x[i];
    mean /= static_cast<double>(inner);
    for (std::int64_t i = 0; i < inner; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<double>(inner);
    double inv = 1.0 / std::sqrt(var + eps);
    means[static_cast<std::size_t>(o)] = mean;
    inv_std[static_cast<std::size_t>(o)] = inv;
    for (std::int64_t i = 0; i < inner; ++i) {
      std::int64_t so = 0, bo = 0;
      for (std::size_t d = 0; d < index.size(); ++d) {
        so += index[d] * s_strides[d];
        if (B) bo += index[d] * b_strides[d];
      }
      Y.set(o * inner + i, (x[i] - mean) * inv * scale.get(so) + (B ? B->get(bo) : 0.0));
      next_index(index, X.shape);
    }
  }
  result.push_back(std::move(Y));
  if (a.num_outputs() > 1) {
    Tensor m = a.make_output(1, stat_shape);
    for (std::int64_t o = 0; o < outer; ++o) m.set(o, means[static_cast<std::size_t>(o)]);
    result.push_back(std::move(m));
  }
  if (a.num_outputs() > 2) {
    Tensor s = a.make_output(2, stat_shape);
    for (std::int64_t o = 0; o < outer; ++o) s.set(o, inv_std[static_cast<std::size_t>(o)]);
    result.push_back(std::move(s));
  }
  return result;
}

std::vector<Tensor> op_rms_norm(const OpArgs &a) {
  const Tensor &X = a.input(0), &scale = a.input(1);
  if (X.rank() == 0) a.fail("X must have rank 1 or more");
  if (a.num_outputs() != 1) a.fail("has one output");
  if (a.attr_int("stash_type", 1) != 1) a.fail("stash_type must be 1 (f32)");
  int axis = normalize_axis(a, a.attr_int("axis", -1), X.rank());
  double eps = a.attr_float("epsilon", 1e-5);
  // scale broadcasts (numpy, unidirectionally) to the normalized dims, and
  // so to X.
  Shape norm(X.shape.begin() + axis, X.shape.end());
  if (scale.rank() > static_cast<int>(norm.size()) || broadcast_shapes(a, {scale.shape, norm}) != norm)
    a.fail("scale of shape " + shape_to_string(scale.shape) + " does not broadcast to the normalized shape " +
           shape_to_string(norm));
  std::vector<std::int64_t> s_strides = broadcast_strides(scale.shape, norm);
  Tensor Y = a.make_output(0, X.shape);
  std::int64_t outer = dims_product(X.shape, 0, axis), inner = dims_product(X.shape, axis, X.rank());
  for (std::int64_t o = 0; o < outer; ++o) {
    const double *x = X.data.data() + o * inner;
    double ms = 0;
    for (std::int64_t i = 0; i < inner; ++i) ms += x[i] * x[i];
    double inv = 1.0 / std::sqrt(ms / static_cast<double>(inner) + eps);
    std::vector<std::int64_t> index(norm.size(), 0);
    for (std::int64_t i = 0; i < inner; ++i) {
      std::int64_t so = 0;
      for (std::size_t d = 0; d < index.size(); ++d) so += index[d] * s_strides[d];
      Y.set(o * inner + i, x[i] * inv * scale.get(so));
      next_index(index, norm);
    }
  }
  return {std::move(Y)};
}

std::vector<Tensor> op_instance_norm(const OpArgs &a) {
  const Tensor &X = a.input(0), &scale = a.input(1), &B = a.input(2);
  if (X.rank() < 3) a.fail("X must have rank 3 or more (N, C, spatial...), got " + shape_to_string(X.shape));
  std::int64_t C = X.shape[1];
  check_channel_vector(a, scale, "scale", C);
  check_channel_vector(a, B, "B", C);
  double eps = a.attr_float("epsilon", 1e-5);
  Tensor out = a.make_output(0, X.shape);
  std::int64_t inner = dims_product(X.shape, 2, X.rank());
  for (std::int64_t p = 0; p < X.shape[0] * C; ++p) {
    const double *x = X.data.data() + p * inner;
    std::int64_t c = p % C;
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < inner; ++i) mean += x[i];
    mean /= static_cast<double>(inner);
    for (std::int64_t i = 0; i < inner; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<double>(inner);
    for (std::int64_t i = 0; i < inner; ++i)
      out.set(p * inner + i, (x[i] - mean) / std::sqrt(var + eps) * scale.get(c) + B.get(c));
  }
  return {std::move(out)};
}

/// Softmax (log_form false) or LogSoftmax along one axis, max-shifted.
std::vector<Tensor> softmax(const OpArgs &a, bool log_form) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  if (rank == 0) a.fail("X must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", -1), rank);
  Tensor out = a.make_output(0, X.shape);
  if (out.numel() == 0) return {std::move(out)};
  std::int64_t outer = dims_product(X.shape, 0, axis), len = X.shape[axis], inner = dims_product(X.shape, axis + 1, rank);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      auto at = [&](std::int64_t k) { return o * len * inner + k * inner + i; };
      double m = X.get(at(0));
      for (std::int64_t k = 1; k < len; ++k) m = std::max(m, X.get(at(k)));
      double sum = 0;
      for (std::int64_t k = 0; k < len; ++k) sum += std::exp(X.get(at(k)) - m);
      for (std::int64_t k = 0; k < len; ++k) {
        double shifted = X.get(at(k)) - m;
        out.set(at(k), log_form ? shifted - std::log(sum) : std::exp(shifted) / sum);
      }
    }
  return {std::move(out)};
}

/// LRN: x / (bias + alpha / size * sum of squares over the channel window) ^ beta.
std::vector<Tensor> op_lrn(const OpArgs &a) {
  const Tensor &X = a.input(0);
  if (X.rank() < 3) a.fail("X must have rank 3 or more (N, C, spatial...), got " + shape_to_string(X.shape));
  std::int64_t size = a.attr_int("size", 0);
  if (size < 1) a.fail("size must be positive");
  double alpha = a.attr_float("alpha", 1e-4), beta = a.attr_float("beta", 0.75), bias = a.attr_float("bias", 1.0);
  std::int64_t C = X.shape[1], inner = dims_product(X.shape, 2, X.rank()), below = (size - 1) / 2;
  Tensor out = a.make_output(0, X.shape);
  for (std::int64_t n = 0; n < X.shape[0]; ++n)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (std::int64_t k = std::max<std::int64_t>(0, c - below); k <= std::min(C - 1, c - below + size - 1); ++k) {
          double v = X.get((n * C + k) * inner + i);
          sum += v * v;
        }
        std::int64_t at = (n * C + c) * inner + i;
        out.set(at, X.get(at) / std::pow(bias + alpha / static_cast<double>(size) * sum, beta));
      }
  return {std::move(out)};
}

/// Hardmax: 1 at the first maximum along the axis (the first NaN, as numpy's
/// argmax), 0 elsewhere.
std::vector<Tensor> op_hardmax(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  if (rank == 0) a.fail("input must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", -1), rank);
  Tensor out = a.make_output(0, X.shape);
  std::int64_t outer = dims_product(X.shape, 0, axis), len = X.shape[axis], inner = dims_product(X.shape, axis + 1, rank);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::int64_t base = o * len * inner + i;
      out.set(base + extreme_index(X, base, len, inner, true) * inner, 1.0);
    }
  return {std::move(out)};
}

/// LpNormalization: x over its L1 or L2 norm along the axis; 0 where the
/// norm is 0.
std::vector<Tensor> op_lp_norm(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  if (rank == 0) a.fail("input must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", -1), rank);
  std::int64_t p = a.attr_int("p", 2);
  if (p != 1 && p != 2) a.fail("p must be 1 or 2, got " + std::to_string(p));
  Tensor out = a.make_output(0, X.shape);
  std::int64_t outer = dims_product(X.shape, 0, axis), len = X.shape[axis], inner = dims_product(X.shape, axis + 1, rank);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      auto at = [&](std::int64_t k) { return o * len * inner + k * inner + i; };
      double norm = 0;
      for (std::int64_t k = 0; k < len; ++k) norm += p == 1 ? std::fabs(X.get(at(k))) : X.get(at(k)) * X.get(at(k));
      if (p == 2) norm = std::sqrt(norm);
      for (std::int64_t k = 0; k < len; ++k) out.set(at(k), norm == 0 ? 0.0 : X.get(at(k)) / norm);
    }
  return {std::move(out)};
}

std::vector<Tensor> op_softmax(const OpArgs &a) { return softmax(a, false); }
std::vector<Tensor> op_log_softmax(const OpArgs &a) { return softmax(a, true); }

}  // namespace

const OpTable &normalization_ops() {
  static const OpTable table = {{"BatchNormalization", op_batch_norm},
                                {"LayerNormalization", op_layer_norm},
                                {"RMSNormalization", op_rms_norm},
                                {"InstanceNormalization", op_instance_norm},
                                {"Softmax", op_softmax},
                                {"LogSoftmax", op_log_softmax},
                                {"Hardmax", op_hardmax},
                                {"LpNormalization", op_lp_norm},
                                {"LRN", op_lrn}};
  return table;
}

}  // namespace atl::reference::detail
