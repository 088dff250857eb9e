// Naive loop kernels: what a programmer writes first, compiled with gcc -O3 -march=native
// (and -ffp-contract=fast, gcc's default outside ISO mode); outer loops split with OpenMP.
#include "bench/naive_kernels.h"

#include <algorithm>
#include <cmath>

namespace atl::bench::naive {

void gemm(const float *a, const float *b, float *c, int m, int n, int k, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int i = 0; i < m; ++i) {
    float *ci = c + static_cast<std::int64_t>(i) * n;
    for (int j = 0; j < n; ++j) ci[j] = 0.0f;
    for (int p = 0; p < k; ++p) {
      float aip = a[static_cast<std::int64_t>(i) * k + p];
      const float *bp = b + static_cast<std::int64_t>(p) * n;
      for (int j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

void conv2d(const float *x, const float *wt, float *y, const ConvShape &s, int threads) {
  const int oh = s.oh(), ow = s.ow(), cg = s.c / s.groups, og = s.o / s.groups;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int o = 0; o < s.o; ++o) {
    float *yo = y + static_cast<std::int64_t>(o) * oh * ow;
    for (int i = 0; i < oh * ow; ++i) yo[i] = 0.0f;
    const int g = o / og;
    for (int ci = 0; ci < cg; ++ci) {
      const float *xc = x + static_cast<std::int64_t>(g * cg + ci) * s.h * s.w;
      for (int r = 0; r < s.kh; ++r)
        for (int q = 0; q < s.kw; ++q) {
          const float wv = wt[((static_cast<std::int64_t>(o) * cg + ci) * s.kh + r) * s.kw + q];
          // Output columns whose input column ow*stride + q - pad lies in [0, w).
          int lo = std::max(0, (s.pad - q + s.stride - 1) / s.stride);
          int hi = std::min(ow, (s.w + s.pad - q + s.stride - 1) / s.stride);
          for (int yy = 0; yy < oh; ++yy) {
            int iy = yy * s.stride + r - s.pad;
            if (iy < 0 || iy >= s.h) continue;
            const float *xr = xc + static_cast<std::int64_t>(iy) * s.w;
            const int shift = q - s.pad;
            float *yr = yo + static_cast<std::int64_t>(yy) * ow;
            for (int xx = lo; xx < hi; ++xx) yr[xx] += wv * xr[xx * s.stride + shift];
          }
        }
    }
  }
}

void add_relu_mul(const float *a, const float *b, const float *c, float *y, std::int64_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float t = a[i] + b[i];
    y[i] = (t > 0.0f ? t : 0.0f) * c[i];
  }
}

void softmax(const float *x, float *y, std::int64_t rows, std::int64_t cols, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float mx = xr[0];
    for (std::int64_t j = 1; j < cols; ++j) mx = std::max(mx, xr[j]);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) {
      yr[j] = std::exp(xr[j] - mx);
      sum += yr[j];
    }
    for (std::int64_t j = 0; j < cols; ++j) yr[j] /= sum;
  }
}

void layernorm(const float *x, const float *scale, const float *bias, float *y, std::int64_t rows,
               std::int64_t cols, float eps, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float mean = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) mean += xr[j];
    mean /= static_cast<float>(cols);
    float var = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    float rstd = 1.0f / std::sqrt(var / static_cast<float>(cols) + eps);
    for (std::int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - mean) * rstd * scale[j] + bias[j];
  }
}

void triad(float *a, const float *b, const float *c, float s, std::int64_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace atl::bench::naive
