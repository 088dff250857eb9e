// Reference Conv and ConvTranspose over 1 to 3 spatial dimensions, with
// groups, strides, dilations, explicit or automatic padding and bias.
#include "src/reference/reference_internal.h"

namespace atl::reference::detail {

namespace {

/// Common checks of X, W and the optional bias; returns the group count.
std::int64_t check_operands(const OpArgs &a, const Tensor &X, const Tensor &W, const Tensor *B, std::int64_t bias_len) {
  if (X.rank() < 3) a.fail("X must have rank 3 or more (N, C, spatial...), got " + shape_to_string(X.shape));
  if (W.rank() != X.rank())
    a.fail("W " + shape_to_string(W.shape) + " must have the rank of X " + shape_to_string(X.shape));
  std::int64_t group = a.attr_int("group", 1);
  if (group < 1) a.fail("group must be positive, got " + std::to_string(group));
  if (B && (B->rank() != 1 || B->shape[0] != bias_len))
    a.fail("bias B must have shape [" + std::to_string(bias_len) + "], got " + shape_to_string(B->shape));
  return group;
}

std::vector<Tensor> op_conv(const OpArgs &a) {
  const Tensor &X = a.input(0), &W = a.input(1);
  const Tensor *B = a.optional_input(2);
  std::int64_t group = check_operands(a, X, W, B, W.rank() > 0 ? W.shape[0] : 0);
  std::int64_t N = X.shape[0], C = X.shape[1], M = W.shape[0];
  if (C % group != 0 || M % group != 0 || W.shape[1] * group != C)
    a.fail("channels do not match group " + std::to_string(group) + ": X " + shape_to_string(X.shape) + ", W " +
           shape_to_string(W.shape));
  Shape in(X.shape.begin() + 2, X.shape.end());
  WindowAttrs w = read_window(a, in, Shape(W.shape.begin() + 2, W.shape.end()), true);
  Shape out_shape{N, M};
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::int64_t span = in[i] + w.pad_begin(i) + w.pad_end(i) - w.extent(i);
    if (span < 0) a.fail("the dilated kernel is larger than the padded input in spatial dim " + std::to_string(i));
    out_shape.push_back(span / w.strides[i] + 1);
  }
  Tensor out = a.make_output(0, out_shape);
  Geometry3 g = make_geometry3(a, in, Shape(out_shape.begin() + 2, out_shape.end()), w);
  std::int64_t Cg = C / group, Mg = M / group;
  std::int64_t in_size = g.in[0] * g.in[1] * g.in[2], k_size = g.kernel[0] * g.kernel[1] * g.kernel[2];
  std::int64_t o = 0;  // linear output index, row-major over [N, M, od, oh, ow]
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      std::int64_t first_c = (m / Mg) * Cg;
      for (std::int64_t od = 0; od < g.out[0]; ++od)
        for (std::int64_t oh = 0; oh < g.out[1]; ++oh)
          for (std::int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
            double sum = 0;
            for (std::int64_t c = 0; c < Cg; ++c) {
              std::int64_t x_base = (n * C + first_c + c) * in_size, w_base = (m * Cg + c) * k_size;
              for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                std::int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
                if (id < 0 || id >= g.in[0]) continue;
                for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  std::int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                  if (ih < 0 || ih >= g.in[1]) continue;
                  for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    std::int64_t iw = ow * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                    if (iw < 0 || iw >= g.in[2]) continue;
                    sum += X.get(x_base + (id * g.in[1] + ih) * g.in[2] + iw) *
                           W.get(w_base + (kd * g.kernel[1] + kh) * g.kernel[2] + kw);
                  }
                }
              }
            }
            if (B) sum += B->get(m);
            out.set(o, sum);
          }
    }
  return {std::move(out)};
}

std::vector<Tensor> op_conv_transpose(const OpArgs &a) {
  const Tensor &X = a.input(0), &W = a.input(1);
  const Tensor *B = a.optional_input(2);
  std::int64_t group = a.attr_int("group", 1);
  std::int64_t M = W.rank() > 1 ? W.shape[1] * group : 0;
  check_operands(a, X, W, B, M);
  std::int64_t N = X.shape[0], C = X.shape[1];
  if (C % group != 0 || W.shape[0] != C)
    a.fail("channels do not match group " + std::to_string(group) + ": X " + shape_to_string(X.shape) + ", W " +
           shape_to_string(W.shape) + " (W is [C, M/group, k...])");
  Shape in(X.shape.begin() + 2, X.shape.end());
  std::size_t n = in.size();
  WindowAttrs w = read_window(a, in, Shape(W.shape.begin() + 2, W.shape.end()), false);
  std::vector<std::int64_t> out_pad = a.attr_ints("output_padding", std::vector<std::int64_t>(n, 0));
  if (out_pad.size() != n) a.fail("'output_padding' must have " + std::to_string(n) + " values");
  for (std::int64_t p : out_pad)
    if (p < 0) a.fail("'output_padding' values must be non-negative");
  // The full (unpadded) output extent of each spatial dim.
  auto full = [&](std::size_t i) { return w.strides[i] * (in[i] - 1) + out_pad[i] + w.extent(i); };
  std::optional<std::vector<std::int64_t>> requested = a.attr_ints_opt("output_shape");
  if (requested && requested->size() == n + 2) requested->erase(requested->begin(), requested->begin() + 2);
  if (requested && requested->size() != n) a.fail("'output_shape' must have " + std::to_string(n) + " values");
  if (!requested && (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER")) {
    requested.emplace();
    for (std::size_t i = 0; i < n; ++i) requested->push_back(in[i] * w.strides[i]);
  }
  if (requested) {
    // ONNX: total = full - output_shape; SAME_UPPER puts the odd pad at the end, others at the beginning.
    for (std::size_t i = 0; i < n; ++i) {
      // Floor division, as ONNX's reference implementation (Python //) does when total < 0.
      std::int64_t total = full(i) - (*requested)[i];
      std::int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      w.pads[i] = w.auto_pad == "SAME_UPPER" ? half : total - half;
      w.pads[n + i] = total - w.pads[i];
    }
  } else if (w.auto_pad == "VALID") {
    w.pads.assign(2 * n, 0);
  }
  Shape out_shape{N, M};
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t size = full(i) - w.pad_begin(i) - w.pad_end(i);
    if (size < 1) a.fail("output spatial dim " + std::to_string(i) + " would be " + std::to_string(size));
    out_shape.push_back(size);
  }
  Tensor out = a.make_output(0, out_shape);
  Geometry3 g = make_geometry3(a, in, Shape(out_shape.begin() + 2, out_shape.end()), w);
  std::int64_t Cg = C / group, Mg = M / group;
  std::int64_t in_size = g.in[0] * g.in[1] * g.in[2], out_size = g.out[0] * g.out[1] * g.out[2];
  std::int64_t k_size = g.kernel[0] * g.kernel[1] * g.kernel[2];
  std::vector<double> acc(static_cast<std::size_t>(out.numel()), 0.0);
  // Scatter: every input element adds x * W into the outputs its kernel covers.
  for (std::int64_t b = 0; b < N; ++b)
    for (std::int64_t c = 0; c < C; ++c) {
      std::int64_t first_m = (c / Cg) * Mg;
      for (std::int64_t id = 0; id < g.in[0]; ++id)
        for (std::int64_t ih = 0; ih < g.in[1]; ++ih)
          for (std::int64_t iw = 0; iw < g.in[2]; ++iw) {
            double x = X.get((b * C + c) * in_size + (id * g.in[1] + ih) * g.in[2] + iw);
            for (std::int64_t m = 0; m < Mg; ++m) {
              std::int64_t y_base = (b * M + first_m + m) * out_size, w_base = (c * Mg + m) * k_size;
              for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                std::int64_t od = id * g.stride[0] - g.pad[0] + kd * g.dilation[0];
                if (od < 0 || od >= g.out[0]) continue;
                for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  std::int64_t oh = ih * g.stride[1] - g.pad[1] + kh * g.dilation[1];
                  if (oh < 0 || oh >= g.out[1]) continue;
                  for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    std::int64_t ow = iw * g.stride[2] - g.pad[2] + kw * g.dilation[2];
                    if (ow < 0 || ow >= g.out[2]) continue;
                    acc[static_cast<std::size_t>(y_base + (od * g.out[1] + oh) * g.out[2] + ow)] +=
                        x * W.get(w_base + (kd * g.kernel[1] + kh) * g.kernel[2] + kw);
                  }
                }
              }
            }
          }
    }
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    std::int64_t m = (i / out_size) % M;
    out.set(i, acc[static_cast<std::size_t>(i)] + (B ? B->get(m) : 0.0));
  }
  return {std::move(out)};
}

}  // namespace

const OpTable &conv_ops() {
  static const OpTable table = {{"Conv", op_conv}, {"ConvTranspose", op_conv_transpose}};
  return table;
}

}  // namespace atl::reference::detail
