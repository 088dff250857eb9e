// Cost-model multi-level tiling of a GEMM-shaped statement (MatMul, Gemm,
// batched MatMul, Conv): cache tiles sized from isl footprints against the
// target's caches, a register micro-tile (MR rows unrolled and jammed, NR
// columns = a few vectors) whose full tiles are isolated, and marks that ask
// the AST builder to unroll the rows and the backend to vectorize the columns.
//
// Before (C[m, n] += A[m, k] * B[k, n] and its init, isl's schedule):
//
//   band [m, n, k] permutable
//     sequence: filter mm_0_init, filter mm_0
//
// After (AVX-512, 1024^3; init distributed into its own band):
//
//   sequence
//     filter mm_0_init: band [m, n]
//     filter mm_0:      band [floor(k / 112)]                          // cache tiles
//                         band [floor(m / 6), floor(n / 64), k]        // register tiles, reduction
//                           mark "unroll": band [m]   (isolate: full 6 x 64 tiles)
//                             mark "vector": band [n]
//
// A channel-blocked conv (block_conv_layout: Y[n, ob, oh, ow, o] += X[n, c,
// oh + kh, ow + kw] * W[ob, c, kh, kw, o], o in 0:16) has a vector dimension
// of one vector (o), rows over the output pixels (ow: the X read does not move
// with o) and column blocks over ob (the W read moves with ob, the X read does
// not): the micro-tile is MR rows x NU column blocks of one vector each, MR
// and NU chosen for the most multiply-adds per load (AVX-512: 7 x 4 for
// Ow = 56, 28, 112), the reduction innermost and not split for L1:
//
//   band [n, oh, floor(ow / 7), floor(ob / 4), floor(o / 16), kh, kw, c]
//     mark "unroll": band [ob]  mark "unroll": band [ow]  mark "vector": band [o]
#pragma once

#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/gemm_tiling.h"
#include "polyhedral/target/cpu_target.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace atl::poly {

/// Mark names the transformation puts in the schedule tree (read by build_ast).
namespace tree_mark {
inline constexpr const char *kUnroll = "unroll";  ///< unroll the loops of the band below fully
inline constexpr const char *kVector = "vector";  ///< the band below is the vector loop
}  // namespace tree_mark

struct CpuTileOptions {
  CpuTarget target;
  /// Cache tile sizes per domain dimension of the main statement (the `tile`
  /// hint; 0 = not tiled). Empty: chosen by the cost model.
  std::vector<long> cache_sizes;
  long unroll = 0;        ///< register-tile rows (the `unroll` hint); 0 = cost model, 1 = none
  bool vectorize = true;  ///< false: no vector columns in the register tile
  /// Run the main statement's init and its elementwise epilogue (statements
  /// that read its results element by element: bias, activation, residual
  /// Add, layout conversion) inside its tiles (transforms/schedule/tile_companions).
  bool epilogue = true;
};

/// What tile_for_cpu did.
struct CpuTileResult {
  isl::schedule schedule;          ///< the new schedule (the input when not applied)
  bool applied = false;
  std::string statement;           ///< the main statement
  std::vector<long> cache_sizes;   ///< per domain dimension (0 = untiled)
  long mr = 1, nr = 1;             ///< register tile: rows x columns (all vectors of all column blocks)
  long nu = 1;                     ///< column blocks of a blocked layout (nr = nu x the vector dimension)
  int bands = 0;                   ///< bands created for the main statement
  int companions = 0;              ///< init and epilogue statements run inside its tiles
  bool original_order = false;     ///< the scheduler's tree was not usable: statements in program order
  std::string reason;              ///< why not applied
};

/// Tiles the main GEMM-shaped statement of `schedule` (a `+=` reduction with a
/// stride-1 output dimension and another parallel output dimension) for the
/// target; other statements keep their band, distributed before/after it in
/// their original order (statements in program order when the scheduler's
/// tree has another shape or fuses the main statement with others). The
/// caller checks legality of the result. Leaves schedules without such a
/// statement unchanged (applied = false, with a reason).
CpuTileResult tile_for_cpu(const Scop &scop, const isl::schedule &schedule, const CpuTileOptions &options);

/// What the tiling leaves for the passes after it (an empty statement when
/// it did not apply).
inline GemmTiling gemm_tiling(const CpuTileResult &t) {
  return {t.applied ? t.statement : std::string(), t.cache_sizes, t.mr, t.nr, t.nu};
}

}  // namespace atl::poly
