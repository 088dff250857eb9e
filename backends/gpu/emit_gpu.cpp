// Prints GPU launches as CUDA C++ or OpenCL C through emit_c's statement
// printer (see emit_gpu.h).
#include "backends/gpu/emit_gpu.h"

#include "backends/cpu/emit_c.h"
#include "backends/cpu/kernel_info.h"

#include <atoll/diagnostics.h>

#include <set>
#include <sstream>

namespace atl::gpu {

namespace {

using poly::GpuDialect;

// The <stdint.h> names as the LP64 types both dialects have (the same
// types as glibc's, so a host compiler that saw <stdint.h> accepts them).
const char *kTypes = R"(typedef long int64_t;
typedef unsigned long uint64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
#ifndef INT64_MAX
#define INT64_MAX 9223372036854775807L
#define INT64_MIN (-INT64_MAX - 1L)
#endif
)";

const char *kCudaPrelude = R"(#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
)";

// OpenCL C spells the float functions without the C suffix (overloads).
const char *kOpenClPrelude = R"(#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define expf exp
#define logf log
#define sqrtf sqrt
#define tanhf tanh
#define erff erf
#define fabsf fabs
#define floorf floor
#define powf pow
)";

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

void collect_stored(const poly::LStmt &s, std::set<std::string> &out) {
  if (s.kind == poly::LStmtKind::Store) out.insert(s.array);
  for (const poly::LStmtPtr &c : s.body)
    if (c) collect_stored(*c, out);
  if (s.then_body) collect_stored(*s.then_body, out);
  if (s.else_body) collect_stored(*s.else_body, out);
}

const char *kDims = "xyz";

/// The index builtins of a dialect: thread or block index, and the counts.
std::string builtin(GpuDialect d, bool thread, int dim, bool count) {
  if (d == GpuDialect::Cuda)
    return std::string(thread ? (count ? "blockDim." : "threadIdx.") : (count ? "gridDim." : "blockIdx.")) + kDims[dim];
  return std::string(thread ? (count ? "get_local_size(" : "get_local_id(") : (count ? "get_num_groups(" : "get_group_id(")) +
         std::to_string(dim) + ")";
}

void print_launch(std::ostream &os, const poly::LKernel &k, const poly::GpuLaunch &l, GpuDialect d) {
  std::set<std::string> stored;
  if (k.body) collect_stored(*k.body, stored);
  const int threads = l.block[0] * l.block[1] * l.block[2];
  os << "/* launch " << l.name << " of kernel " << k.name << ": block (" << l.block[0] << ", " << l.block[1] << ", "
     << l.block[2] << ")" << (l.mapped ? "" : ", one thread (no parallel band)") << " */\n";
  if (d == GpuDialect::Cuda)
    os << "extern \"C\" __global__ void __launch_bounds__(" << threads << ", 1) " << l.name << "(";
  else
    os << "__kernel __attribute__((reqd_work_group_size(" << l.block[0] << ", " << l.block[1] << ", " << l.block[2]
       << "))) void " << l.name << "(";
  std::size_t n = 0;
  for (const poly::LArray &a : k.arrays) {
    os << (n++ ? ", " : "") << (d == GpuDialect::OpenCL ? "__global " : "") << (stored.count(a.name) ? "" : "const ")
       << cpu::c_storage_type(a.dtype) << " *" << (d == GpuDialect::Cuda ? "__restrict__ " : "restrict ") << a.name;
  }
  for (const std::string &p : k.params) os << (n++ ? ", " : "") << "int64_t " << p;
  os << ") {\n";
  cpu::CBodyHooks hooks;
  hooks.loop = [d](std::ostream &out, const poly::LStmt &loop, const std::string &pad, const std::string &init,
                   const std::string &cond) {
    std::optional<poly::GpuMark> g = poly::gpu_mark_of(loop);
    const std::string &it = loop.iterator;
    // A register tile's rows (map_to_gpu): NVRTC unrolls them into registers.
    if (!g && d == GpuDialect::Cuda && loop.marks.count(poly::mark::kUnroll)) out << pad << "#pragma unroll\n";
    if (!g) {
      out << pad << "for (int64_t " << it << " = " << init << "; " << cond << "; " << it << " += " << loop.step << ") {\n";
      return true;
    }
    const std::string step = std::to_string(loop.step);
    out << pad << "for (int64_t " << it << " = " << init << " + " << step << " * (int64_t)" << builtin(d, g->thread, g->dim, false)
        << "; " << cond << "; " << it << " += " << step << " * (int64_t)" << builtin(d, g->thread, g->dim, true) << ") {\n";
    return true;
  };
  if (l.body) cpu::emit_c_body(os, k, *l.body, hooks);
  os << "}\n\n";
}

}  // namespace

std::string emit_gpu(const std::vector<GpuKernelSource> &kernels, GpuDialect dialect) {
  std::set<std::string> names;
  for (const GpuKernelSource &s : kernels) {
    if (!s.kernel->locals.empty())
      throw UserError("kernel " + s.kernel->name + ": local buffers are not supported by the GPU printer");
    for (const poly::GpuLaunch &l : s.program->launches)
      if (!names.insert(l.name).second) throw UserError("two GPU kernels are named '" + l.name + "'");
  }
  std::ostringstream os;
  const bool cuda = dialect == GpuDialect::Cuda;
  os << "/* Generated by Atoll (backends/gpu/emit_gpu) from the GPU launches, " << (cuda ? "CUDA C++" : "OpenCL C 1.2")
     << ".\n * Self-contained: no #include. Every launch takes its kernel's arrays, then its\n"
        " * int64 parameters; its loops are grid- and block-stride loops, correct for any\n"
        " * grid and block size. */\n";
  os << (cuda ? kCudaPrelude : kOpenClPrelude) << kTypes;
  std::string helpers = cpu::c_helpers();
  if (cuda) helpers = replace_all(helpers, "static inline ", "static __device__ inline ");
  os << helpers << "\n";
  for (const GpuKernelSource &s : kernels)
    for (const poly::GpuLaunch &l : s.program->launches) print_launch(os, *s.kernel, l, dialect);
  return os.str();
}

}  // namespace atl::gpu
