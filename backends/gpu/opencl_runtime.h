// OpenCL, loaded at run time (dlopen of the ICD loader libOpenCL.so.1): a
// program built from source on the first device of the first platform, and
// launches of its kernels on host arrays. Atoll has no link-time OpenCL
// dependency. Here the platform is PoCL (pocl-opencl-icd), which runs the
// kernels on the CPU: the tests verify the GPU mapping's arithmetic and
// indexing with it (not its synchronisation: PoCL hides missing barriers).
//
// PoCL carries its own LLVM; Atoll links LLVM 19 statically and exports
// none of its symbols (no -rdynamic), so both live in one process.
#pragma once

#include "polyhedral/ast/gpu_launches.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace atl::gpu {

/// True when an OpenCL platform with a device can be used.
bool opencl_available();

/// The first device's name ("cpu-...-AMD EPYC" on PoCL), or a reason why there is none.
std::string opencl_device();

/// A built OpenCL program and the launches of its kernels.
class OpenClProgram {
public:
  /// Builds `source`. Throws UserError: "no OpenCL platform", or the build log.
  explicit OpenClProgram(const std::string &source);
  ~OpenClProgram();
  OpenClProgram(const OpenClProgram &) = delete;
  OpenClProgram &operator=(const OpenClProgram &) = delete;

  /// Runs the launches of one cluster kernel, in order, on its arrays (host
  /// pointers, in LKernel::arrays order) and parameters (LKernel::params
  /// order): arrays are copied to the device, the stored ones back. Outputs
  /// and temporaries start as NaN bytes (0xff) on the device, so that an
  /// element no launch writes shows in the result.
  void run(const poly::LKernel &kernel, const poly::GpuProgram &program, void **arrays,
           const std::int64_t *params) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// An Index expression of the kernel's parameters (a launch's grid) at `params`.
std::int64_t eval_index(const poly::LExpr &e, const poly::LKernel &kernel, const std::int64_t *params);

}  // namespace atl::gpu
