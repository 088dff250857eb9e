// Maps the outermost bands of a schedule tree to a GPU's blocks and threads.
//
// Each outermost band with parallel members becomes one GPU
// kernel K. Three of its parallel members at most (on x the one along which
// the statements write consecutive elements, so that neighbouring threads
// store to neighbouring addresses; then the innermost others) are tiled
// by the block size: the tile loops go to blocks, the point loops to
// threads, each a one-member band under a mark that says so:
//
// Before (a GEMM's band; i, j coincident, k not):
//
//   band [permutable, coincident: 1 1 0] { S[i, j, k] -> [(i), (j), (k)] }
//
// After (block 64 x 4, 4 rows a thread):
//
//   mark "block_y_0"  band { S[i, j, k] -> [(floor(i / 16))] }
//   mark "block_x_0"  band { S[i, j, k] -> [(floor(j / 64))] }
//   mark "thread_y_0" band { S[i, j, k] -> [(floor(i / 4))] }
//   mark "thread_x_0" band { S[i, j, k] -> [(j)] }
//   band [permutable, coincident: 0] { S[i, j, k] -> [(k)] }
//   mark "unroll"     band { S[i, j, k] -> [(i)] }
//
// Where a member that is not parallel (a reduction) runs inside each thread
// and two dimensions are mapped, each thread takes 4 rows of y: the thread
// band is floor(i / 4), and a band of the rows, marked "unroll", goes below
// the reduction's band (a register tile: a value the rows share, B[k][j],
// is loaded once a step of k).
//
// Outer coincident members beyond three stay a band of loops above the
// tile loops, run by every thread; members that are not coincident, and
// the subtree below the band, run inside each thread. A band without a
// coincident member is not mapped: its kernel runs on one thread
// (transforms/ast/split_launches). The loops are printed as grid- and
// block-stride loops (backends/gpu), so the code is correct for any grid
// and block size; the sizes chosen here only decide how the work spreads.
#pragma once

#include "polyhedral/target/gpu_target.h"

#include <isl/cpp.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace atl::poly {

/// One mapped band: the threads of a block and the number of blocks, per
/// dimension x, y, z (unused dimensions: 1 thread, a null grid).
struct GpuMapping {
  int kernel = 0;                       ///< K in the marks "block_x_K"
  std::array<int, 3> block = {1, 1, 1};
  /// Blocks per dimension: the number of tile-loop values, a piecewise
  /// affine function of the parameters (a constant for static shapes).
  /// (isl objects must not be null when copied: unused dimensions are empty.)
  std::array<std::optional<isl::pw_aff>, 3> grid;
  std::array<long, 3> extent = {1, 1, 1};  ///< the mapped members' extents (-1: symbolic)
  int rows_per_thread = 1;  ///< rows of y a thread takes (a register tile; 1: none)
};

struct GpuMapResult {
  isl::schedule schedule;
  std::vector<GpuMapping> kernels;  ///< in program order
  int unmapped = 0;                 ///< outermost bands left unmapped (no coincident member, or anchored)
};

/// Maps every outermost band of `schedule` (see the header comment).
/// A member counts as parallel when no dependence of `deps` (flow, anti and
/// output, reductions included) joins two instances with the same outer
/// schedule and different values of the member; the band's coincident
/// flags are not trusted (a given tree has none).
/// `threads`, when not empty, is the `tile` hint: threads along each member
/// of the band in band order (a short list repeats its last entry; 0 keeps
/// the target's choice). Throws UserError when a block would exceed the
/// target's threads per block or CUDA's 64 along z.
/// `writes` (the SCoP's must-writes) choose x: the parallel member along
/// which the most statements write consecutive elements (coalesced stores);
/// without one, or with `writes` null, the innermost parallel member.
GpuMapResult map_to_gpu(const isl::schedule &schedule, const isl::union_map &deps, const GpuTarget &target,
                        const std::vector<long> &threads = {}, const isl::union_map &writes = {});

}  // namespace atl::poly
