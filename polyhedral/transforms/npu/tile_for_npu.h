// Tile sizes of an NPU kernel from the target's buffer capacities and an
// analytical cost over the tile trip counts (as AKG's tiling for Ascend:
// fit every buffer with room for two slots, then take the cheapest).
//
//   cube:   mc x nc output tiles (L0C, and UB for the epilogue), kc-long
//           chunks of k in L1, k0-long steps in L0A/L0B;
//   vector: tr x tc tiles in UB.
//
// Every buffer has two slots (double buffering). The cost per pipe sums
// the startup, burst and byte costs of the copies, the cube steps and the
// vector repeats a tile issues; the kernel costs the busiest pipe times
// the tiles a core runs, plus one tile's other pipes (fill and drain).
#pragma once

#include "polyhedral/target/npu_target.h"
#include "polyhedral/transforms/npu/npu_plan.h"

#include <vector>

namespace atl::poly {

/// The UB tiles a kernel's tile stage holds (per slot): the full tiles
/// (the accumulator, loaded operands, written arrays, expression
/// temporaries) and the one-row tiles of broadcast rows. The code
/// generator allocates exactly these.
struct NpuUbTiles {
  int full = 0;     ///< tiles of rows x cols
  int temps = 0;    ///< of which expression temporaries (one slot: the vector unit alone uses them)
  int rows = 0;     ///< tiles of 16 x cols (broadcast rows)
  int cols = 0;     ///< per-row values: a block (32 bytes) of copies a row, one slot
  int col_loads = 0;  ///< of which loaded: each also has a compact staging buffer, two slots
  int vec_ops = 0;  ///< vector instructions a tile issues (for the cost)
  int loads = 0;    ///< tiles copied in from global memory
  int stores = 0;   ///< tiles copied out
};
NpuUbTiles npu_ub_tiles(const NpuKernelPlan &plan);

/// For a binary operation (or max, min) with one operand a broadcast row
/// or per-row value read as it is and the other a computed tile: that
/// operand's index (the code generator applies it in place); else -1.
int npu_broadcast_operand(const compute::Expr &e, const NpuKernelPlan &plan, bool per_row);

/// Whether `e` reads `array`.
bool npu_reads(const compute::Expr &e, const std::string &array);

/// A constant extent, or `guess` for a symbolic one.
std::int64_t npu_extent(const Dim &d, std::int64_t guess = 1024);

/// Chooses the plan's tile sizes; `hint` (the schedule's `tile` hint for
/// the cluster: mc, nc, kc[, k0] or tr, tc) is checked against the
/// capacities and used as given. Throws UserError when a hint does not fit,
/// naming the memory, the buffers and the capacity.
void tile_for_npu(NpuKernelPlan &plan, const NpuTargetInfo &target, const std::vector<long> &hint);

}  // namespace atl::poly
