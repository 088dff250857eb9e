// Compiles kernels in-process with ORC LLJIT and looks up their _entry
// functions. Each kernel is lowered, optimized and compiled to an object in a
// context of its own, so kernels compile on several threads; the objects are
// then linked into one JIT.
#include "backends/cpu/jit.h"

#include "backends/cpu/lower_to_llvm.h"
#include "backends/cpu/optimize_module.h"
#include "backends/cpu/runtime/parallel_for.h"

#include "graph/core/parallel_jobs.h"

#include <atoll/diagnostics.h>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cmath>
#include <set>

namespace atl::cpu {

namespace {

template <typename T>
T unwrap(llvm::Expected<T> value, const char *what) {
  if (!value) internal_error(__FILE__, __LINE__, std::string(what) + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error err, const char *what) {
  if (err) internal_error(__FILE__, __LINE__, std::string(what) + ": " + llvm::toString(std::move(err)));
}

/// Runtime and libm functions generated code calls, bound by address so they
/// resolve even where the executable does not export them.
llvm::orc::SymbolMap runtime_symbols(llvm::orc::MangleAndInterner &mangle) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *fn) {
    map[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                         llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  add("atoll_parallel_for", &atoll_parallel_for);
  using F1 = float (*)(float);
  using D1 = double (*)(double);
  using F2 = float (*)(float, float);
  using D2 = double (*)(double, double);
  add("expf", static_cast<F1>(::expf));
  add("exp", static_cast<D1>(::exp));
  add("logf", static_cast<F1>(::logf));
  add("log", static_cast<D1>(::log));
  add("tanhf", static_cast<F1>(::tanhf));
  add("tanh", static_cast<D1>(::tanh));
  add("erff", static_cast<F1>(::erff));
  add("erf", static_cast<D1>(::erf));
  add("powf", static_cast<F2>(::powf));
  add("pow", static_cast<D2>(::pow));
  add("sqrtf", static_cast<F1>(::sqrtf));
  add("sqrt", static_cast<D1>(::sqrt));
  add("floorf", static_cast<F1>(::floorf));
  add("floor", static_cast<D1>(::floor));
  add("sinf", static_cast<F1>(::sinf));
  add("sin", static_cast<D1>(::sin));
  add("cosf", static_cast<F1>(::cosf));
  add("cos", static_cast<D1>(::cos));
  add("tanf", static_cast<F1>(::tanf));
  add("tan", static_cast<D1>(::tan));
  add("asinf", static_cast<F1>(::asinf));
  add("asin", static_cast<D1>(::asin));
  add("acosf", static_cast<F1>(::acosf));
  add("acos", static_cast<D1>(::acos));
  add("atanf", static_cast<F1>(::atanf));
  add("atan", static_cast<D1>(::atan));
  add("sinhf", static_cast<F1>(::sinhf));
  add("sinh", static_cast<D1>(::sinh));
  add("coshf", static_cast<F1>(::coshf));
  add("cosh", static_cast<D1>(::cosh));
  add("asinhf", static_cast<F1>(::asinhf));
  add("asinh", static_cast<D1>(::asinh));
  add("acoshf", static_cast<F1>(::acoshf));
  add("acosh", static_cast<D1>(::acosh));
  add("atanhf", static_cast<F1>(::atanhf));
  add("atanh", static_cast<D1>(::atanh));
  return map;
}

/// One kernel as a host object in memory, and its optimized IR when asked.
struct KernelObject {
  std::unique_ptr<llvm::MemoryBuffer> object;
  std::string ir;
};

/// Lowers, optimizes and compiles one kernel in an LLVM context of its own
/// (safe on several threads at once). A module per kernel, whatever the
/// thread count, so the code does not depend on it.
KernelObject compile_kernel(const poly::LKernel &kernel, const JitOptions &options) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lower_to_llvm({kernel}, context, kernel.name);
  std::unique_ptr<llvm::TargetMachine> tm = host_target_machine();
  optimize_module(*module, *tm, options.opt_level);
  KernelObject out;
  if (options.keep_ir) {
    llvm::raw_string_ostream os(out.ir);
    module->print(os, nullptr);
  }
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  emit_object(*module, *tm, os);
  out.object = std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(bytes), kernel.name + ".o", false);
  return out;
}

}  // namespace

KernelJit::KernelJit(const std::vector<poly::LKernel> &kernels, const JitOptions &options) {
  std::set<std::string> names;
  for (const poly::LKernel &k : kernels)
    if (!names.insert(k.name).second) throw UserError("two kernels are named '" + k.name + "'");
  std::vector<KernelObject> objects(kernels.size());
  parallel_jobs(kernels.size(), compile_worker_threads(kernels.size(), options.threads),
                [&](std::size_t i) { objects[i] = compile_kernel(kernels[i], options); });
  for (const KernelObject &o : objects) ir_ += o.ir;

  auto jtmb = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "cannot describe the host for the JIT");
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jit_ = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                "cannot create the JIT");
  llvm::orc::JITDylib &jd = jit_->getMainJITDylib();
  llvm::orc::MangleAndInterner mangle(jit_->getExecutionSession(), jit_->getDataLayout());
  check(jd.define(llvm::orc::absoluteSymbols(runtime_symbols(mangle))), "cannot define runtime symbols");
  jd.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                             jit_->getDataLayout().getGlobalPrefix()),
                         "cannot search the process for symbols"));
  for (KernelObject &o : objects) check(jit_->addObjectFile(std::move(o.object)), "cannot add a kernel to the JIT");
  for (const poly::LKernel &k : kernels) {
    llvm::orc::ExecutorAddr addr = unwrap(jit_->lookup(k.name + "_entry"), "cannot compile kernel");
    entries_[k.name] = addr.toPtr<KernelEntry>();
  }
}

KernelJit::~KernelJit() = default;

KernelEntry KernelJit::entry(const std::string &kernel) const {
  auto it = entries_.find(kernel);
  return it == entries_.end() ? nullptr : it->second;
}

}  // namespace atl::cpu
