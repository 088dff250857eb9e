// Guard versioning on the loop AST: a register tile whose guarded reads
// (padding: a window that reaches past the image's edge) all fall within
// their arrays at run time executes a copy of itself with plain loads.
//
// Before (a 3x3 depthwise conv, pads 1: every read is guarded, so every
// vector load is a masked load):
//
//   for c3 = 0 .. 2 {                        // column tiles of 16
//     unroll/vector ... y[c, h, w] += guard(x[c, h + kh - 1, w + kw - 1], 0.0) * k[c, kh, kw]
//   }
//
// After (the tile's reads span rows 6 * c2 - 1 .. 6 * c2 + 6 and columns
// 16 * c3 - 1 .. 16 * c3 + 16; interval bounds over the tile's own loops):
//
//   for c3 = 0 .. 2 {
//     if (6 * c2 - 1 >= 0 && 6 * c2 + 6 < 56 && 16 * c3 - 1 >= 0 && 16 * c3 + 16 < 56) {
//       ... y[c, h, w] += x[c, h + kh - 1, w + kw - 1] * k[c, kh, kw]
//     } else {
//       ... the tile as it was
//     }
//   }
//
// A tile is the body of a loop that is neither unrolled nor a vector loop
// and that holds inner loops, all of them unrolled or vector loops
// (straight-line code once the backend has unrolled them; one statement
// alone is not worth a check). The bounds come from affine subscripts and the inner
// loops' affine bounds (an upper bound min(a, b) is bounded by a or b); a
// read whose subscripts are not affine keeps its guard in both copies.
// Checks that hold for every iteration of the enclosing loops are dropped;
// a tile whose checks cannot all hold at once is left alone.
#pragma once

#include "polyhedral/ast/loop_ast.h"

namespace atl::poly {

/// What version_guards did.
struct VersionGuardsResult {
  int tiles = 0;   ///< tile bodies now run in two versions
  int loads = 0;   ///< guarded reads without a guard in the plain versions
};

/// Versions the register tiles of `kernel` that hold guarded reads.
VersionGuardsResult version_guards(LKernel &kernel);

}  // namespace atl::poly
