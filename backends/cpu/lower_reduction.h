// Vector reduction loops in LLVM IR: partial <lanes x float> accumulators
// carried through the loop, folded into one scalar after it.
//
// Before: for (c2 = 0; c2 < N; c2 += 1) // reduction
//           sum[c1] += exp(x[c1, c2] - mx[c1])
// After:  acc0..acc3 = <16 x float> 0; for (i = 0; i + 64 <= N; i += 64) acc_c += exp(x[i + 16c ..] - mx);
//         for (; i + 16 <= N; i += 16) acc0 += ...; sum[c1] += fold(acc0 + acc1 + acc2 + acc3); scalar remainder
#pragma once

#include "graph/core/scalar_ops.h"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace atl::cpu {

/// NaN-propagating min/max as the evaluator computes it, lane by lane:
/// (isnan(a) || a OP b) ? a : b. Float vectors on x86: maxps / minps, a NaN
/// test and a blend.
llvm::Value *emit_pick(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *c, bool max);

/// old OP v for a reduction operator (Assign gives v), with the builder's
/// fast-math flags; max and min as emit_pick(v, old), so a NaN sticks, in
/// the form of compares and a select that folds against the identity.
/// `keep_nan` false (a nan_insensitive reduction): max and min as one
/// maxps / minps, which may drop a NaN.
llvm::Value *emit_combine(llvm::IRBuilderBase &b, compute::AssignOp op, llvm::Value *old, llvm::Value *v,
                          bool keep_nan = true);

/// The neutral element of `op` (0, 1, -inf, +inf) as a constant of type `t`
/// (scalar or vector); Assign has none (0 is returned).
llvm::Constant *reduction_identity(compute::AssignOp op, llvm::Type *t);

/// The lanes of vector `v` folded with `op`: a shuffle tree, log2(lanes)
/// steps (lanes a power of two). Max and min on x86: one NaN test of `v`
/// (a NaN lane gives NaN), then plain maxps / minps steps; without the test
/// when `keep_nan` is false.
llvm::Value *emit_horizontal(llvm::IRBuilderBase &b, compute::AssignOp op, llvm::Value *v, bool keep_nan = true);

/// The lanes of each vector of `vs` (same type, lanes a power of two, at
/// most lanes vectors) folded with `op`, jointly: pairs of vectors become one
/// whose lanes hold half of each (two shuffles and one `op` for two rows,
/// where emit_horizontal spends log2(lanes) shuffles and `op`s per row),
/// then the last vector halves until one lane per input is left. Sums add
/// the lanes in emit_horizontal's order; max and min propagate NaN
/// (emit_pick) unless `keep_nan` is false. Returns one scalar per input, in order.
std::vector<llvm::Value *> emit_horizontal_group(llvm::IRBuilderBase &b, compute::AssignOp op,
                                                 const std::vector<llvm::Value *> &vs, bool keep_nan = true);

/// What emit_vector_reduction_loop needs: one operator per accumulator, the
/// lanes, the partial accumulators per operator (independent chains that
/// hide the latency of the combining instruction) and a name for the blocks.
struct VectorReductionLoop {
  std::vector<compute::AssignOp> ops;
  /// Per accumulator: false for a max or min that may drop NaN (emit_combine).
  std::vector<bool> keep_nan;
  std::int64_t lanes = 16;
  std::int64_t copies = 4;
  std::string name;
  /// False: the caller folds the lanes (VectorReductionResult::partials),
  /// e.g. with other rows' in emit_horizontal_group.
  bool fold = true;
};

/// Vector chunk callback: emit the body for lanes iv .. iv + lanes - 1,
/// updating `acc` (one <lanes x float> value per accumulator) in place.
using VectorChunk = std::function<void(llvm::Value *iv, std::vector<llvm::Value *> &acc)>;

/// After emit_vector_reduction_loop: the first iteration left to scalar
/// code, and each accumulator's lanes folded into one scalar (the identity
/// when no chunk ran), or with VectorReductionLoop::fold false the
/// accumulators' lanes unfolded.
struct VectorReductionResult {
  llvm::Value *next = nullptr;
  std::vector<llvm::Value *> totals;
  std::vector<llvm::Value *> partials;
};

/// Emits for (i = start; i + lanes * copies <= end; i += lanes * copies)
/// { chunk(i + lanes * c, partials of copy c) for each copy c }, combines the
/// copies, then for (; i + lanes <= end; i += lanes) chunk(i, partials), and
/// folds the lanes (unless spec.fold is false). The builder's insertion point ends after the fold.
VectorReductionResult emit_vector_reduction_loop(llvm::IRBuilderBase &b, llvm::Value *start, llvm::Value *end,
                                                 const VectorReductionLoop &spec, const VectorChunk &chunk);

}  // namespace atl::cpu
