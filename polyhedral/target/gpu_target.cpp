// GPU target descriptions: the CUDA architectures CUDA 13 compiles for and
// the OpenCL profile of PoCL, the platform the tests run OpenCL kernels on.
#include "polyhedral/target/gpu_target.h"

#include <atoll/diagnostics.h>

#include <regex>

namespace atl::poly {

bool is_gpu_target(const std::string &spec) {
  static const std::regex cuda(R"(cuda(:sm_[0-9]+a?)?)");
  return spec == "opencl" || std::regex_match(spec, cuda);
}

GpuTarget gpu_target(const std::string &spec) {
  GpuTarget t;
  Location where;
  where.hint = "target";
  if (spec == "opencl") {
    t.name = "pocl";
    t.dialect = GpuDialect::OpenCL;
    t.sm = 0;
    t.max_threads_per_block = 4096;
    t.max_block_z = 4096;
    t.shared_bytes_per_block = 1024 * 1024;
    return t;
  }
  if (spec == "cuda") return t;
  static const std::regex cuda(R"(cuda:sm_([0-9]+)a?)");
  std::smatch m;
  if (!std::regex_match(spec, m, cuda))
    throw UserError("unknown GPU target '" + spec + "' (expected cuda, cuda:sm_XX or opencl)", where);
  const int sm = std::stoi(m[1].str());
  if (sm < 75 || sm > 121)
    throw UserError("target " + spec + ": CUDA 13 compiles for sm_75 to sm_121", where);
  t.sm = sm;
  t.name = sm == 80 ? "a100" : sm == 90 ? "h100" : "sm_" + std::to_string(sm);
  return t;
}

std::string describe(const GpuTarget &t) {
  std::string s = t.dialect == GpuDialect::Cuda ? "cuda sm_" + std::to_string(t.sm) : std::string("opencl");
  return s + ", warp " + std::to_string(t.warp) + ", " + std::to_string(t.block_threads) + " threads a block, " +
         std::to_string(t.shared_bytes_per_block / 1024) + "K shared";
}

}  // namespace atl::poly
