// oneDNN primitives for the benchmark cases: matmul, convolution (plain NCHW or
// the blocked layout oneDNN prefers), binary with post-ops, softmax, layer norm.
#pragma once

#include "bench/naive_kernels.h"

#include <functional>
#include <memory>
#include <string>

namespace atl::bench::dnnl_cases {

/// A primitive bound to its memories. run() is the timed part (execute and
/// wait); finish() brings the result into the caller's plain buffer (a
/// reorder when oneDNN computes in a blocked layout; nothing otherwise).
class Run {
public:
  virtual ~Run() = default;
  virtual void run() = 0;
  virtual void finish() {}
  /// The implementation oneDNN chose (impl_info_str) and, for convolutions, the layouts.
  std::string kernel;
};

/// oneDNN's version and CPU runtime, e.g. "oneDNN 2.6.3 (OpenMP runtime)".
std::string version();

/// C[M,N] = A[M,K] B[K,N] with the matmul primitive (row-major, no transposes).
std::unique_ptr<Run> matmul(const float *a, const float *b, float *c, int m, int n, int k);
/// Activation layouts of a convolution.
enum class ConvLayout {
  Plain,    ///< nchw activations, oihw (goihw) weights, as given
  Blocked,  ///< nChw16c activations (nchw input when C % 16 != 0), weights as oneDNN likes (any)
  Any,      ///< everything format_tag::any: oneDNN's own choice
};
/// Convolution without bias. Inputs are converted to the primitive's layouts and
/// the output back to nchw outside the timed run.
std::unique_ptr<Run> conv2d(const float *x, const float *w, float *y, const naive::ConvShape &s, ConvLayout layout);
/// y = max(a + b, 0) * c: binary add with an eltwise relu and a binary mul post-op (one pass).
std::unique_ptr<Run> add_relu_mul(const float *a, const float *b, const float *c, float *y, long rows, long cols);
/// Softmax over the last axis of [rows, cols].
std::unique_ptr<Run> softmax(const float *x, float *y, long rows, long cols);
/// Layer normalization over the last axis with scale and shift.
std::unique_ptr<Run> layernorm(const float *x, const float *scale, const float *bias, float *y, long rows, long cols,
                               float eps);

}  // namespace atl::bench::dnnl_cases
