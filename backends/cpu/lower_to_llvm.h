// Loop AST -> LLVM IR: one typed function and one generic _entry per kernel.
//
// ABI, per kernel NAME (arrays in LKernel order, then parameters):
//   void NAME(T0 *noalias a0, ..., int64_t p0, ...);
//   void NAME_entry(void **arrays, const int64_t *params);
// Element storage: f32 float, f16 half, bf16 uint16 bits, i8/i32/i64 ints,
// bool uint8 0/1; arrays are dense row-major.
//
// Floating point: values are float when every array is f32/f16/bf16, else
// double. Every fadd/fsub/fmul carries only the `contract` flag (FMA
// allowed, nothing else); a reduction store (`+=`, `*=`) inside a loop marked
// `reduction` also gets `reassoc`, so the vectorizer may reorder it. No other
// fast-math flag is ever set. Stores round through float for f16/bf16 (as
// atl::round_to does); integer stores truncate toward zero and wrap
// (saturating at int64, NaN -> 0); bool stores x != 0.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <memory>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace atl::cpu {

/// Lowers kernels into one new module (no target set; see optimize_module).
/// Parallel loops (mark::kParallel, condition `i < e` or `i <= e`) become an
/// outlined body passed to atoll_parallel_for; vector and unroll marks become
/// llvm.loop metadata. Throws UserError from check_kernel.
std::unique_ptr<llvm::Module> lower_to_llvm(const std::vector<poly::LKernel> &kernels, llvm::LLVMContext &context,
                                            const std::string &module_name = "atoll");

}  // namespace atl::cpu
