// Register tiling of window reductions (depthwise convolution, pooling) for the CPU: output loops outside, the window inside, unrolled rows and vector columns innermost.
//
// A window reduction `Y[..., h, w] op= f(X[..., s*h + kh, s*w + kw], W[..., kh, kw])`
// has no contraction dimension (every reduction dimension longer than one
// moves a window over an output dimension), so tile_for_cpu leaves it
// alone and isl puts the channel loop innermost. This transformation gives
// the statement its own band: the output dimensions outside (parallel),
// the rows and the stride-1 columns strip-mined into a register tile whose
// full tiles are isolated, the window dimensions inside it (unrolled when
// small, so the whole tile body is straight-line and its accumulators stay
// in registers), then the rows (unrolled) and the columns (vector).
//
// Before (depthwise 3x3 over 144 channels at 56x56, isl's schedule: the
// channel loop m innermost, at a stride of 56 x 56 floats):
//
//   band [h, w, m, 0 | kh, 0 | kh + kw]
//     sequence: filter dw_0_init, filter dw_0
//
// After (AVX-512: 4 rows x 3 vectors of 16 columns; 56 = 48 + 8 columns):
//
//   sequence: filter w < 48 (dw_0_init and dw_0)
//     band [n, m, floor(h / 4)]                       (isolate: full tiles, when rows are left over)
//       sequence
//         filter dw_0_init: mark "unroll": band [h]
//                             mark "vector": band [w]
//         filter dw_0:      mark "unroll": band [c]
//                             mark "unroll": band [kh]
//                               mark "unroll": band [kw]
//                                 mark "unroll": band [h]
//                                   mark "vector": band [w]
//   filter w >= 48: band [n, m, h]                    (the columns left over, loops kept)
//                     sequence: filter dw_0_init: band [w]
//                               filter dw_0: band [c] band [kh] band [kw] band [w]
//
// Reads along the columns of stride 2 to 4 (stride-2 windows) still make
// vector columns (the backend loads them as a wide load and a shuffle);
// other strides make a few unrolled scalar columns (no "vector" mark).
// The elementwise epilogue that follows a window statement (bias,
// BatchNormalization, Clip, each reading its output at the element it
// writes) runs inside each register tile, after the window loops: a sequence
// (init, window statement, epilogue) below the tile band, the epilogue over
// the tile's rows (unrolled) and columns (vector); with the column split,
// each subtree holds the epilogue of its own columns.
//
// A window too large to unroll keeps its loops; the backend then keeps the
// accumulators in registers across the innermost window loop.
#pragma once

#include "polyhedral/scop/scop.h"
#include "polyhedral/target/cpu_target.h"

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace atl::poly {

struct WindowTileOptions {
  CpuTarget target;
  long rows = 0;           ///< register-tile rows (the `unroll` hint); 0 = cost model, 1 = none
  long vectors = 0;        ///< vectors (or scalar columns) per row; 0 = cost model
  bool vectorize = true;   ///< false: scalar columns only
  long max_unrolled = 64;  ///< unroll the window when it has at most this many positions (0: never)
  bool epilogue = true;    ///< run the elementwise epilogue (bias, BN, Clip) inside the window's tiles
};

/// One window statement's register tile.
struct WindowTile {
  std::string statement;
  long rows = 1;        ///< rows of the register tile (1: not tiled)
  long columns = 1;     ///< elements along the stride-1 dimension (1: not tiled)
  bool vector = false;  ///< the columns are vectors (unit-stride reads)
  bool unrolled = false;  ///< the window loops are unrolled
};

/// What tile_window_for_cpu did.
struct WindowTileResult {
  isl::schedule schedule;          ///< the new schedule (the input when not applied)
  bool applied = false;
  std::vector<WindowTile> tiles;   ///< one per transformed statement
  std::string reason;              ///< why not applied
  int companions = 0;              ///< epilogue statements placed inside the window tiles
};

/// Rebuilds the band of every window-reduction statement of `schedule` (a
/// reduction whose output's last subscript is a parallel index and whose
/// reduction dimensions longer than one each move over an output dimension
/// in every read that uses them) as described above; other statements keep
/// their bands, distributed in their original order. The caller checks
/// legality of the result. Leaves other schedules unchanged (applied =
/// false, with a reason).
WindowTileResult tile_window_for_cpu(const Scop &scop, const isl::schedule &schedule, const WindowTileOptions &options);

}  // namespace atl::poly
