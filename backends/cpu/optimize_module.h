// The host target machine and LLVM's default optimization pipeline (O0-O3) for it.
#pragma once

#include <memory>

namespace llvm {
class Module;
class TargetMachine;
class raw_pwrite_stream;
}  // namespace llvm

namespace atl::cpu {

/// A TargetMachine for this host: its triple, CPU name and features (as LLVM
/// detects them), position-independent code, aggressive code generation.
std::unique_ptr<llvm::TargetMachine> host_target_machine();

/// Gives `m` the triple and data layout of `tm` and runs PassBuilder's
/// default per-module pipeline at `opt_level` (0..3) with the target's cost
/// model, so the vectorizer uses the host's vector width.
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm, int opt_level = 3);

/// Writes `m` (optimized for `tm`) as a host object file to `out`: the JIT's
/// in-memory objects and `atoll compile`'s GRAPH.o.
void emit_object(llvm::Module &m, llvm::TargetMachine &tm, llvm::raw_pwrite_stream &out);

}  // namespace atl::cpu
