// Sorts a cluster's SCoP into an NPU kernel kind and reads its arrays as
// tiles (npu_plan.h):
//
//   cube:   C[b.., m, n] += A[.., m, k] * B[.., k, n] (either operand may be
//           stored transposed), then elementwise statements over C's space
//           (bias, activation, residual) as the epilogue;
//   vector: elementwise statements over one space.
//
// What the NPU cannot run, or this code generator does not handle yet,
// is a UserError naming the node and why: other reductions (Softmax,
// pooling), windows (convolutions), run-time indices, columns broadcast
// over rows, non-float data.
#pragma once

#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/npu/npu_plan.h"

namespace atl::poly {

NpuKernelPlan classify_npu_kernel(const Scop &scop);

}  // namespace atl::poly
