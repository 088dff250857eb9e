// The host target machine and LLVM's default optimization pipeline (O0-O3) for it.
#pragma once

#include <memory>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace atl::cpu {

/// A TargetMachine for this host: its triple, CPU name and features (as LLVM
/// detects them), position-independent code, aggressive code generation.
std::unique_ptr<llvm::TargetMachine> host_target_machine();

/// Gives `m` the triple and data layout of `tm` and runs PassBuilder's
/// default per-module pipeline at `opt_level` (0..3) with the target's cost
/// model, so the vectorizer uses the host's vector width.
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int opt_level = 3);

}  // namespace atl::cpu
