// The CPU backend's facade: JIT or C-built executables, IR and C text, object files.
#pragma once

#include "backends/cpu/c_build.h"
#include "backends/cpu/jit.h"
#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl::cpu {

struct CpuOptions {
  int opt_level = 3;       ///< LLVM pipeline level 0..3 (JIT, object, optimized IR)
  bool keep_ir = false;    ///< JIT: keep the optimized IR (CpuExecutable::optimized_ir)
  std::size_t compile_threads = 0;  ///< JIT: threads compiling kernels (0 = the hardware's)
  CBuildOptions c_build;   ///< C path: compiler and flags
};

/// Compiled kernels, callable by name through the generic entry ABI:
/// arrays[i] points to array i of the kernel (in LKernel order, dense
/// row-major storage of its dtype), params[j] is parameter j.
class CpuExecutable {
public:
  ~CpuExecutable();
  /// Runs a kernel in round-to-nearest (restoring the caller's rounding mode
  /// after); throws UserError when no kernel has that name.
  void run(const std::string &kernel, void **arrays, const std::int64_t *params) const;
  /// NAME_entry, or null.
  KernelEntry entry(const std::string &kernel) const;
  bool has_kernel(const std::string &kernel) const { return entry(kernel) != nullptr; }
  /// The optimized LLVM IR (JIT built with keep_ir; empty otherwise).
  std::string optimized_ir() const;

private:
  friend std::unique_ptr<CpuExecutable> jit_kernels(const std::vector<poly::LKernel> &, const CpuOptions &);
  friend std::unique_ptr<CpuExecutable> build_c_kernels(const std::vector<poly::LKernel> &, const CpuOptions &);
  CpuExecutable() = default;

  std::unique_ptr<KernelJit> jit_;
  std::unique_ptr<CLibrary> lib_;
  std::map<std::string, KernelEntry> entries_;
};

/// Lowers to LLVM IR, optimizes for the host and compiles in-process (ORC LLJIT).
std::unique_ptr<CpuExecutable> jit_kernels(const std::vector<poly::LKernel> &kernels, const CpuOptions &options = {});
/// Emits C99, builds it with the system C compiler into a shared object and loads it.
std::unique_ptr<CpuExecutable> build_c_kernels(const std::vector<poly::LKernel> &kernels,
                                               const CpuOptions &options = {});
/// The module's text (explain --stage llvm): as lowered when opt_level < 0,
/// else after the pipeline at that level for the host.
std::string emit_llvm_ir(const std::vector<poly::LKernel> &kernels, int opt_level = -1);
/// The C99 source (explain --stage c; compile --target cpu-c).
std::string emit_c_source(const std::vector<poly::LKernel> &kernels);
/// The host object file and its C header (compile --target cpu). A kernel
/// named in `same_code` (kernel -> another of `kernels`) has the other's
/// body under its own names: its symbols are aliases of the other's, whose
/// code is generated once.
void write_object(const std::vector<poly::LKernel> &kernels, const std::string &path_o, const std::string &path_h,
                  const CpuOptions &options = {}, const std::map<std::string, std::string> &same_code = {});
/// Threads parallel loops use (--threads); n <= 0 restores hardware_concurrency.
void set_cpu_threads(int n);

}  // namespace atl::cpu
