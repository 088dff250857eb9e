// Fusion of sibling bands: consecutive loop nests of a sequence that pass data
// (a flow dependence from one to the next) share their outer loops where the
// dependences allow it, so a fused cluster's operators run together and its
// temporaries can be contracted.
//
// Before (isl keeps Softmax's three phases apart):
//
//   sequence
//     filter {max, max_init}:      band [i0, i1, i2]
//     filter {exp, sum, sum_init}: band [i0, i1, i2]
//     filter {div}:                band [i0, i1, i2]
//
// After (one row at a time; i2 cannot be shared: the max is complete only
// after the whole row):
//
//   band [i0, i1]
//     sequence
//       filter {max, max_init}:      band [i2]
//       filter {exp, sum, sum_init}: band [i2]
//       filter {div}:                band [i2]
#pragma once

#include "polyhedral/deps/dependences.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

namespace atl::poly {

struct FuseBandsResult {
  isl::schedule schedule;  ///< the input when nothing was fused
  int fusions = 0;         ///< pairs of bands fused
};

/// Greedily, left to right, fuses each child band of the sequence at the top
/// of the schedule with the next one when the next reads what it writes, on
/// as many outer members as stay legal (check_legality); the fused band's
/// remaining members stay as inner bands.
FuseBandsResult fuse_sibling_bands(const Scop &scop, const Dependences &deps, const isl::schedule &schedule);

}  // namespace atl::poly
