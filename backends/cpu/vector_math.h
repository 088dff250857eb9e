// Emitters of inline LLVM IR for f32 exp, log, tanh, sigmoid, erf and Gelu (scalar or vector).
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace atl::cpu {

// Every emitter takes `x` of type float or <N x float> and returns a value of
// the same type, computed with plain arithmetic, llvm.fma, integer bit tricks
// and selects, with no branches in the caller's blocks, so loops using them
// vectorise. A vector exp (and so a vector sigmoid) is a call of an internal
// always-inline function of the module with no memory effects, whose body
// branches around its rare wide-range case (see emit_exp); every
// optimisation level inlines it, so optimised code calls nothing.
// The instructions carry no fast-math flags; results do not depend on the
// vector width (scalar and vector lanes are bit-identical). Error bounds are
// those measured by tests/unit/backends/cpu/vector_math_test.cpp against
// libm in double over dense sweeps (1 ulp = spacing of f32 at the exact result).

/// e^x. Max error 1.04 ulp for normal results. x > 88.7228 -> +inf,
/// x < -103.98 -> +0; results in the denormal range are computed (not
/// flushed; error <= 1 denormal ulp). NaN -> NaN. On a host with AVX-512 a
/// vector scales by 2^n with vscalefps, with no branch. Elsewhere a vector
/// whose every lane is in about [-87.6, 88.3] scales by 2^n once; one with a
/// lane beyond (or NaN) branches to the full range's two scales. The bits
/// are the same every way. `bounded_above`: the caller knows x is never
/// +inf (Softmax's x - max x, sigmoid's -|x|); with AVX-512 x is then
/// clamped only below, one operation fewer, the same bits for every other x
/// (a finite x above 88.7228 still gives +inf).
llvm::Value *emit_exp(llvm::IRBuilder<> &b, llvm::Value *x, bool bounded_above = false);

/// emit_exp as on a host without AVX-512 (the branching vector form), on
/// any host: for the tests, which check both forms' bits.
llvm::Value *emit_exp_branching(llvm::IRBuilder<> &b, llvm::Value *x);

/// Natural log. Max error 0.87 ulp (denormal inputs included). log(+-0) = -inf,
/// log(x<0) = NaN, log(+inf) = +inf, NaN -> NaN.
llvm::Value *emit_log(llvm::IRBuilder<> &b, llvm::Value *x);

/// tanh. Max error 1.5 ulp; odd polynomial for |x| < 0.625 (keeps relative
/// accuracy near 0, tanh(+-0) = +-0), (1-e)/(1+e) with e = exp(-2|x|) beyond,
/// +-1 for |x| > 9. NaN -> NaN.
llvm::Value *emit_tanh(llvm::IRBuilder<> &b, llvm::Value *x);

/// 1/(1+e^-x), as 1/(1+e) or e/(1+e) with e = exp(-|x|): no overflow, max
/// error 2.3 ulp (relative accuracy kept for very negative x down to the
/// denormal range). NaN -> NaN.
llvm::Value *emit_sigmoid(llvm::IRBuilder<> &b, llvm::Value *x);

/// erf. x P(x^2) / Q(x^2) on x clamped to [-4, 4], the result clamped to
/// [-1, 1] (no exp, one division; erf(+-0) = +-0): max error 3.8 ulp for
/// |x| < 0.9, 2.7 ulp near 0, 3.2e-7 absolute overall. NaN -> NaN.
llvm::Value *emit_erf(llvm::IRBuilder<> &b, llvm::Value *x);

/// Gelu, 0.5 x (1 + erf(x / sqrt 2)), as x (0.5 + erf(x / sqrt 2) / 2) with
/// emit_erf's rational rescaled to take x: two multiplications fewer than
/// the formula through emit_erf, the same accuracy (erf's error, halved,
/// relative to 0.5 + h; 3.5 ulp for x >= 0), and h clamped only below at
/// -1/2 (gelu is 0 for x below -5.16). NaN -> NaN; +-inf as the formula
/// (+inf, NaN).
llvm::Value *emit_gelu(llvm::IRBuilder<> &b, llvm::Value *x);

}  // namespace atl::cpu
