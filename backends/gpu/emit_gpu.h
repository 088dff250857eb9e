// GPU launches -> one self-contained source file, CUDA C++ or OpenCL C 1.2.
//
// One printer, two dialects: the statements are emit_c's (backends/cpu),
// the helpers its helpers over typedefs of the <stdint.h> names, so the
// same arithmetic (floor division, NaN-propagating min and max, f16 and
// bf16 on 16-bit storage) runs on the CPU and on the GPU. No #include: NVRTC
// needs no include path, and the file compiles with nvcc, NVRTC or an
// OpenCL compiler as it is. Loops marked "block_D_K" become grid-stride
// loops over blockIdx.D / get_group_id(D), loops marked "thread_D_K"
// block-stride loops over threadIdx.D / get_local_id(D): correct for any
// grid and block, the sizes of each launch only spread the work.
//
// Per launch L of a cluster kernel K (polyhedral/ast/gpu_launches.h):
//   CUDA:   extern "C" __global__ void __launch_bounds__(T, 1) K_kI(float *__restrict__ Y, ..., int64_t N)
//   OpenCL: __kernel __attribute__((reqd_work_group_size(X, Y, Z))) void K_kI(__global float *restrict Y, ..., long N)
#pragma once

#include "polyhedral/ast/gpu_launches.h"
#include "polyhedral/target/gpu_target.h"

#include <string>
#include <vector>

namespace atl::gpu {

/// A cluster's kernel and its launches.
struct GpuKernelSource {
  const poly::LKernel *kernel = nullptr;
  const poly::GpuProgram *program = nullptr;
};

/// One translation unit with every launch of the kernels given, in `dialect`.
/// Throws UserError for kernels the GPU printer does not take (local buffers).
std::string emit_gpu(const std::vector<GpuKernelSource> &kernels, poly::GpuDialect dialect);

}  // namespace atl::gpu
