// Splits a cluster's loop AST into GPU launches (polyhedral/ast/gpu_launches.h).
//
// A statement of the AST whose loops carry the marks of one mapped band
// (transforms/schedule/map_to_gpu), with every store under a thread loop,
// is one launch with that band's grid and block. A sequence of such nests
// is one launch each, in order; a guard around several is repeated in
// each. What runs outside any mapped band (a reduction to a scalar, a band
// without a parallel member) is a launch of one thread, its marks dropped,
// consecutive ones merged. A dimension whose loop isl did not make (one
// tile), or that some store of the launch is not inside, gets one block or
// one thread, so that no store runs twice.
//
// Before (the AST of a Softmax's two nests, each mapped):
//   for c0 /* block_x_0 */ { for c1 /* thread_x_0 */ { ... } }
//   for c0 /* block_x_1 */ { for c1 /* thread_x_1 */ { ... } }
// After:
//   launch K_k0 grid(4, 1, 1) block(256, 1, 1) { for c0 ... }
//   launch K_k1 grid(4, 1, 1) block(256, 1, 1) { for c0 ... }
#pragma once

#include "polyhedral/ast/gpu_launches.h"
#include "polyhedral/transforms/schedule/map_to_gpu.h"

#include <vector>

namespace atl::poly {

/// The launches of `kernel` under the mappings of map_to_gpu.
GpuProgram split_launches(const LKernel &kernel, const std::vector<GpuMapping> &mappings);

}  // namespace atl::poly
