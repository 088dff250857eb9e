// Promotion for the CPU (the polyhedral form of BLAS packing): the cache
// tile's footprint of an operand of the main GEMM-shaped statement is copied
// into a small contiguous local buffer at the top of each cache tile, by copy
// statements added with a schedule-tree extension node, and the statement
// reads the buffer instead of the array (build_ast does the rewrite).
//
// Before (tile_for_cpu, C[m, n] += A[m, k] * B[k, n], 1024^3):
//
//   filter mm_0: band [floor(m/Mc), floor(n/Nc), floor(k/Kc)]      // cache tiles
//                  band [floor(m/6), floor(n/64), k] ...            // register tiles
//
// After (B's Kc x Nc panel, reused by every row of the m tile):
//
//   filter mm_0: band [floor(m/Mc), floor(n/Nc), floor(k/Kc)]
//                  extension { [t] -> pack_B[o0, o1, j0, j1] : B[o0 + j0, o1 + j1] is read by tile t,
//                                                           (o0, o1) = the tile's origin in B }
//                    sequence
//                      filter pack_B: band [j0, p, l]            // B_pack[p, j0, l] = B[o0 + j0, o1 + 64 p + l]
//                      filter mm_0:   band [floor(m/6), floor(n/64), k] ...
//                                       // reads B_pack[floor(n/64) - o1/64, k - o0, n - 64 floor(n/64)]
//
// The buffer (the footprint's box in panels of the register tile's columns,
// or with rows padded against cache-set conflicts) is private to one iteration of the innermost cache-tile loop,
// which is inside the parallel loop. Only exact footprints are copied, so
// partial tiles need no padding values.
#pragma once

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/target/cpu_target.h"
#include "polyhedral/transforms/schedule/gemm_tiling.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace atl::poly {

struct PackOptions {
  CpuTarget target;
  /// Largest buffer (constant size, on each thread's stack), also at most the
  /// target's L2: a 2048-column panel of 96 rows (768 KiB) pays at 2048^3.
  long max_bytes = 1024 * 1024;
  long min_reuse = 8;           ///< uses of each copied element within the tile, at least
  /// The vector operand in panels (B of C[m, n] += A[m, k] * B[k, n]) is
  /// copied only when each element serves at least this many rows; fewer
  /// read B in place (the copy costs more than it saves). Reuse over an
  /// unbounded extent counts as large. M = 64 (BERT, the MLP) copies: at 32
  /// the copy of a panel is paid back by the rows that read it from a
  /// contiguous buffer; how much depends on the machine (on one with a small
  /// L2 the copy did not pay at M = 64).
  long min_column_reuse = 32;
  /// Pack only operands whose rows in memory are a multiple of this many bytes
  /// apart (cache-set conflicts: 1024 catches power-of-two leading dimensions);
  /// 0 = any strided operand.
  long conflict_stride = 1024;
  bool rows = false;  ///< also pack the operand that does not move with the vector columns (A)
  /// The vector operand in panels of the register tile's columns (BLIS's
  /// layout: [n / NR][k][NR], each micro-kernel's slab contiguous); false:
  /// the footprint's box with padded rows.
  bool panels = true;
};

/// What pack_tiles did.
struct PackResult {
  isl::schedule schedule;              ///< with the extension node (the input when nothing was packed)
  std::vector<PackedRead> packs;       ///< for build_ast (AstOptions::packs)
  long packed_bytes = 0;               ///< sum of the buffers' sizes
  std::string reason;                  ///< why nothing was packed
};

/// Packs the operands of `tiled.statement` (what a GEMM tiling of
/// `schedule` recorded; none when it is empty) that the cost model chooses: an input array (not written in
/// the SCoP), a constant fixed-size footprint per cache tile of at most
/// max_bytes, reused at least min_reuse times per element (min_column_reuse
/// for the vector operand in panels), strided rows; and
/// a cache-tile loop that can carry the parallelism above the buffer.
PackResult pack_tiles(const Scop &scop, const isl::schedule &schedule, const GemmTiling &tiled,
                      const PackOptions &options);

}  // namespace atl::poly
