// Target description of a GPU for the mapping (transforms/schedule/map_to_gpu)
// and the printers (backends/gpu): the dialect, the architecture, the
// launch limits and the threads a block aims at.
#pragma once

#include <string>

namespace atl::poly {

/// The language a GPU kernel is printed in.
enum class GpuDialect { Cuda, OpenCL };

/// What the mapping and the printers know about a GPU.
struct GpuTarget {
  std::string name = "h100";      ///< the profile ("h100", "h200", "a100", "pocl")
  GpuDialect dialect = GpuDialect::Cuda;
  int sm = 90;                    ///< compute capability x 10 (CUDA); 0 for OpenCL
  int warp = 32;                  ///< threads that execute together (the coalescing width)
  int max_threads_per_block = 1024;
  int max_block_z = 64;           ///< CUDA's limit on blockDim.z
  long shared_bytes_per_block = 48 * 1024;  ///< static shared memory a block may use
  int block_threads = 256;        ///< threads the mapping puts in a block when the extents allow
};

/// The target of `spec`: "cuda" (sm_90), "cuda:sm_XX" (XX >= 75: CUDA 13
/// has no older architecture), "opencl" (the PoCL profile: OpenCL C 1.2, no
/// sub-groups, no fp16 arithmetic). Throws UserError for anything else.
GpuTarget gpu_target(const std::string &spec);

/// True for "cuda", "cuda:sm_XX" and "opencl" (gpu_target accepts them).
bool is_gpu_target(const std::string &spec);

/// A one-line summary ("cuda sm_90, warp 32, 256 threads a block, 48K shared").
std::string describe(const GpuTarget &target);

}  // namespace atl::poly
