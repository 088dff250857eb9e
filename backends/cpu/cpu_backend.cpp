// The CPU backend facade: builds executables through the JIT or the C compiler, prints IR and C.
#include "backends/cpu/cpu_backend.h"

#include "backends/cpu/emit_c.h"
#include "backends/cpu/lower_to_llvm.h"
#include "backends/cpu/object_writer.h"
#include "backends/cpu/optimize_module.h"
#include "backends/cpu/runtime/thread_pool.h"

#include <atoll/diagnostics.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cfenv>

namespace atl::cpu {

CpuExecutable::~CpuExecutable() = default;

void CpuExecutable::run(const std::string &kernel, void **arrays, const std::int64_t *params) const {
  KernelEntry f = entry(kernel);
  if (!f) throw UserError("no compiled kernel named '" + kernel + "'");
  // Generated code assumes IEEE round-to-nearest (LLVM's default environment);
  // a library in the process (PPL sets round-upward) may have changed it.
  int mode = std::fegetround();
  if (mode != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  f(arrays, params);
  if (mode != FE_TONEAREST) std::fesetround(mode);
}

KernelEntry CpuExecutable::entry(const std::string &kernel) const {
  auto it = entries_.find(kernel);
  return it == entries_.end() ? nullptr : it->second;
}

std::string CpuExecutable::optimized_ir() const { return jit_ ? jit_->optimized_ir() : std::string(); }

std::unique_ptr<CpuExecutable> jit_kernels(const std::vector<poly::LKernel> &kernels, const CpuOptions &options) {
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable);
  exe->jit_ = std::make_unique<KernelJit>(kernels, JitOptions{options.opt_level, options.keep_ir, options.compile_threads});
  for (const poly::LKernel &k : kernels) exe->entries_[k.name] = exe->jit_->entry(k.name);
  return exe;
}

std::unique_ptr<CpuExecutable> build_c_kernels(const std::vector<poly::LKernel> &kernels, const CpuOptions &options) {
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable);
  exe->lib_ = std::make_unique<CLibrary>(emit_c(kernels), options.c_build);
  for (const poly::LKernel &k : kernels) {
    KernelEntry e = exe->lib_->entry(k.name);
    ATOLL_ASSERT(e, "the built C library lacks " + k.name + "_entry");
    exe->entries_[k.name] = e;
  }
  return exe;
}

std::string emit_llvm_ir(const std::vector<poly::LKernel> &kernels, int opt_level) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lower_to_llvm(kernels, context);
  if (opt_level >= 0) {
    std::unique_ptr<llvm::TargetMachine> tm = host_target_machine();
    optimize_module(*module, *tm, opt_level);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

std::string emit_c_source(const std::vector<poly::LKernel> &kernels) { return emit_c(kernels); }

void write_object(const std::vector<poly::LKernel> &kernels, const std::string &path_o, const std::string &path_h,
                  const CpuOptions &options, const std::map<std::string, std::string> &same_code) {
  std::vector<poly::LKernel> own;
  for (const poly::LKernel &k : kernels)
    if (!same_code.count(k.name)) own.push_back(k);
  write_object_file(own, path_o, options.opt_level, same_code);
  write_c_header(kernels, path_h);
}

void set_cpu_threads(int n) { set_num_threads(n); }

}  // namespace atl::cpu
