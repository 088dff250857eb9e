// Interleaves the independent rows of a row-wise kernel (Softmax, a short
// reduction per row): the top band's last loop is tiled by a few rows and
// its point loop sunk into each statement group, unrolled, so that the
// rows' latency-bound reduction chains run side by side.
//
// Before (one row at a time: max, then exp and sum, then the division, each
// waiting on the one before; 64 elements a row are 4 vectors, too few to
// hide a horizontal reduction's latency):
//
//   band [i0, i1]
//     sequence
//       filter {max, max_init}:      band [i2]
//       filter {exp, sum, sum_init}: band [i2]
//       filter {div}:                band [i2]
//
// After (R rows per tile, each group's code for the R rows back to back):
//
//   band [i0, floor(i1 / R)]
//     sequence
//       filter {max, max_init}:      mark "unroll" -> band [i1] -> band [i2]
//       filter {exp, sum, sum_init}: mark "unroll" -> band [i1] -> band [i2]
//       filter {div}:                mark "unroll" -> band [i1] -> band [i2]
//
// A group that isl fused with a shift (a Softmax alone: the max at i, the
// exp and sum at 63 + i, in one band) is first cut into its phases, each a
// filter over a copy of the band over its part of the sequence, the order of
// execution unchanged; so the tile's rows finish their max before any starts
// its exp, as they do when the groups are separate.
//
// Legal when the rows are independent; the caller checks (check_legality).
#pragma once

#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <string>

namespace atl::poly {

struct InterleaveRowsOptions {
  /// Rows per tile R, else 2 when R does not divide the rows. Four rows
  /// overlap enough independent reduction chains to hide their latency
  /// without spilling, since the exp loop keeps one accumulator
  /// (kReductionCopies); eight rows spill, two leave the pipes idle.
  long rows = 4;
  long max_row_elements = 256;  ///< statements with more instances per row are not latency-bound
};

struct InterleaveRowsResult {
  isl::schedule schedule;  ///< the input when not applied
  bool applied = false;
  long rows = 0;           ///< R
  long phases_split = 0;   ///< groups cut into phases (isl's shifted fusion of a max and an exp)
  std::string reason;      ///< why not, when not applied
};

/// Applies the transformation to a tree of the shape band -> sequence at its
/// root whose band's members are, for every statement, its first domain
/// dimensions in order, the last of constant extent divisible by R, with
/// at most `max_row_elements` instances of any statement per row.
InterleaveRowsResult interleave_rows(const Scop &scop, const isl::schedule &schedule, const InterleaveRowsOptions &o);

}  // namespace atl::poly
