// Coalesces two adjacent loop dimensions that address the last two
// dimensions of every array they touch (an NCHW image's rows and columns)
// into one, before scheduling: the statements then run over whole planes as
// one dimension, so the vector loop is not cut into short rows (56 = 3 x 16
// + 8 columns: a masked or narrower vector every row, a register tile that
// cannot cover the row).
//
//   before:  y[n, o, h, w] += x[n, c, h, w] * W[o, c]       0 <= h < 56, 0 <= w < 56
//   after:   y[n, o, p / 56, p % 56] += x[n, c, p / 56, p % 56] * W[o, c]       0 <= p < 3136
//
// The access relations stay exact (isl's floor and mod); the loop AST then
// addresses a (p / 56, p % 56) pair of subscripts as element p of the
// flattened plane (build_ast), so p moves with stride 1. Applied to a
// cluster only when every statement has such a pair of one size (the init,
// the epilogue) and nothing else uses the two indices (no window, no
// padding guard, no index as a value).
#pragma once

#include "polyhedral/scop/scop.h"

#include <string>

namespace atl::poly {

struct CoalesceResult {
  bool applied = false;
  long rows = 0, columns = 0;  ///< the extents coalesced (H, W)
  std::string reason;          ///< why not, when not applied
};

/// Coalesces in place when W (the inner extent) is not a multiple of
/// `lanes` (the register tile's width: vectors would not tile the rows) and every statement of `scop`
/// has the pair; nothing changes otherwise.
CoalesceResult coalesce_dims(Scop &scop, long lanes);

}  // namespace atl::poly
