// Builds the host TargetMachine and runs PassBuilder's default pipeline on a module.
#include "backends/cpu/optimize_module.h"

#include "backends/cpu/llvm_host.h"

#include <atoll/diagnostics.h>

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

namespace atl::cpu {

std::unique_ptr<llvm::TargetMachine> host_target_machine() {
  const HostInfo &host = host_info();  // initialises the native target
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(host.triple, error);
  ATOLL_ASSERT(target, "no LLVM target for the host: " + error);
  llvm::SubtargetFeatures features;
  for (const auto &f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.getKey(), f.getValue());
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      host.triple, host.cpu, features.getString(), options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  ATOLL_ASSERT(tm, "cannot create a target machine for " + host.triple);
  return tm;
}

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int opt_level) {
  m.setTargetTriple(tm.getTargetTriple().str());
  m.setDataLayout(tm.createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level)
                                                                      : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

void emit_object(llvm::Module &m, llvm::TargetMachine &tm, llvm::raw_pwrite_stream &out) {
  llvm::legacy::PassManager pm;
  ATOLL_ASSERT(!tm.addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile),
               "the host target cannot emit object files");
  pm.run(m);
}

}  // namespace atl::cpu
