// NVRTC, loaded at run time (dlopen): CUDA C++ -> PTX and a cubin, with
// ptxas's resource report per kernel. Atoll has no link-time CUDA
// dependency; without NVRTC, nvrtc_available() is false and compile_cuda
// says "NVRTC not found".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace atl::gpu {

/// What ptxas reported for one kernel (--ptxas-options=-v).
struct PtxasKernel {
  int registers = 0;
  int barriers = 0;
  long shared_bytes = 0;
  long stack_bytes = 0;
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
};

struct NvrtcResult {
  std::string ptx;
  std::string cubin;   ///< bytes of the cubin for the architecture asked
  std::string log;     ///< NVRTC's log with ptxas's lines
  std::map<std::string, PtxasKernel> kernels;  ///< by kernel name
  int version_major = 0, version_minor = 0;
};

/// True when NVRTC can be loaded (libnvrtc.so.13, .12, or from /usr/local/cuda).
bool nvrtc_available();

/// Compiles `source` (named `name` in messages) for sm_`sm` with NVRTC.
/// Throws UserError: "NVRTC not found", or the compile log naming the file.
NvrtcResult compile_cuda(const std::string &source, const std::string &name, int sm);

/// ptxas's lines of an NVRTC or nvcc log, by kernel.
std::map<std::string, PtxasKernel> parse_ptxas_log(const std::string &log);

}  // namespace atl::gpu
