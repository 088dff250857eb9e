// Intrinsic functions of the Compute language (exp, log, ..., min, max) in LLVM IR, scalar and vector.
#pragma once

#include "graph/core/scalar_ops.h"
#include "polyhedral/ast/loop_ast.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace atl::cpu {

/// f(args) on scalars of the kernel's value type `vt`: f32 uses the inline
/// approximations of vector_math.h (<= 2.5 ulp, which the loop vectorizer can
/// widen) for exp, log, tanh, erf and sigmoid; f64 uses intrinsics and libm
/// calls (declared in `m`, marked as not touching memory). min and max
/// propagate NaN as the evaluator does (emit_pick). `bounded_above`: an exp
/// whose argument is never +inf (LExpr::bounded_above; see emit_exp).
llvm::Value *emit_call(llvm::IRBuilder<> &b, llvm::Module &m, compute::Func f, const std::vector<llvm::Value *> &args,
                       llvm::Type *vt, bool bounded_above = false);

/// f(args) on <lanes x float> vectors: inline approximations and intrinsics only, no calls
/// once optimised (exp is a call of an always-inline function until then, see emit_exp).
llvm::Value *emit_vector_call(llvm::IRBuilder<> &b, compute::Func f, const std::vector<llvm::Value *> &args,
                              bool bounded_above = false);

/// The x of a Gelu as the graph writes it, 0.5 * x * (1 + erf(x * 0.7071067811865476))
/// (a value expression; either operand order of each * and +), else null:
/// lowered as one emit_gelu(x), two multiplications fewer than the formula.
const poly::LExpr *gelu_argument(const poly::LExpr &e);

}  // namespace atl::cpu
