// Moves an in-place epilogue (bias, BatchNormalization, Clip after a register tile) up to the store of the accumulator it reads, so each row's accumulators are finished and freed as soon as its window or reduction ends.
#pragma once

#include <llvm/IR/Function.h>

namespace atl::cpu {

/// For every store S1 whose value is computed (without memory effects, or
/// from buffers the function never writes) from a value V that an earlier
/// store S0 wrote to the same element, S0 stores S1's value instead and S1
/// goes:
///
///   before:  exit_row0:  store acc0, p0              ; row 0's last window row
///            ...         (rows 1..5 accumulate; nothing reads p0)
///            epilogue:   store clip(acc0), p0        ; all rows' epilogues here
///   after:   exit_row0:  store clip(acc0), p0
///
/// A window tile (tile_window_for_cpu) finishes its rows one input row after
/// the other, but its epilogue runs after the last one: every accumulator
/// then stays live to the tile's end, and with the epilogue's constants the
/// 16 AVX2 registers spill. Sound when S0 dominates S1, S1 post-dominates
/// S0, no path between them has a cycle, and nothing between them may read
/// or write S1's bytes (loads and stores of other noalias arguments or
/// allocas, or of the same buffer at a provably disjoint offset, are fine;
/// any other memory access or call stops the move).
/// Returns how many epilogue stores moved.
int hoist_epilogues(llvm::Function &f);

}  // namespace atl::cpu
