// Tiles a copy whose write and read run along different loops (a Transpose) into square blocks, so a block's input lines stay in L1.
//
// Before (B_t = Transpose(B), 512 x 256; isl's band, the output's columns
// innermost and vectorized, each vector of B eight loads 1 KB apart; a
// column of B is 512 lines, more than L1, so every line is fetched 16 times):
//
//   band [c0, c1] permutable, coincident        B_t[c0, c1] = B[c1, c0]
//
// After (blocks of 32 x 32: a block reads 32 lines of B, 2 KB, once):
//
//   band [floor(c0 / 32), floor(c1 / 32)] permutable, coincident
//     band [c0, c1] permutable, coincident
//
// Other members (a Transpose of 3-D tensors) stay outermost, above the
// blocks. Taken for a SCoP of one statement, a plain copy (the value is one
// read), whose write's and read's last subscripts are different indices,
// when one output row reads 256 lines or more (16 KB, half of L1; BERT's
// 64 x 64 per head reads 64 and stays as it is) and the read's last index
// spans two blocks. The caller checks legality.
#pragma once

#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <string>

namespace atl::poly {

struct TransposeTileResult {
  isl::schedule schedule;  ///< the input when not applied
  bool applied = false;
  long size = 0;           ///< the block's side
  std::string reason;      ///< why not applied
};

/// Square blocks of side `size` for a transposing copy (see above).
TransposeTileResult tile_transpose(const Scop &scop, const isl::schedule &schedule, long size = 32);

}  // namespace atl::poly
