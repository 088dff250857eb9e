// Naive loop kernels (built with -O3 -march=native): the "naive" baseline and the
// reference every other result is checked against, plus the STREAM triad.
#pragma once

#include <cstdint>

namespace atl::bench::naive {

/// C[M,N] = A[M,K] * B[K,N], row-major; loops i, k, j (j innermost, stride 1).
void gemm(const float *a, const float *b, float *c, int m, int n, int k, int threads);

/// A 2-D convolution, batch 1, NCHW input [C,H,W], OIHW weights [O, C/groups, KH, KW],
/// NCHW output [O,OH,OW]; symmetric padding; no bias.
struct ConvShape {
  int c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0, stride = 1, pad = 0, groups = 1;
  int oh() const { return (h + 2 * pad - kh) / stride + 1; }
  int ow() const { return (w + 2 * pad - kw) / stride + 1; }
};
/// Loops o, c, kh, kw, oh, ow (ow innermost, bounds clamped instead of tested).
void conv2d(const float *x, const float *wt, float *y, const ConvShape &s, int threads);

/// y = max(a + b, 0) * c over n elements, in one loop.
void add_relu_mul(const float *a, const float *b, const float *c, float *y, std::int64_t n, int threads);
/// Softmax over the last axis of [rows, cols]: max, exp and sum, divide (three loops per row).
void softmax(const float *x, float *y, std::int64_t rows, std::int64_t cols, int threads);
/// LayerNormalization over the last axis of [rows, cols], two-pass mean and variance.
void layernorm(const float *x, const float *scale, const float *bias, float *y, std::int64_t rows,
               std::int64_t cols, float eps, int threads);

/// STREAM triad a[i] = b[i] + s * c[i].
void triad(float *a, const float *b, const float *c, float s, std::int64_t n, int threads);

}  // namespace atl::bench::naive
