// Reorders the members of a permutable band (loop interchange inside a band).
//
// Before (permutation {2, 0, 1}):
//
//   band [permutable, coincident: 1 1 0] { S[i, j, k] -> [(i), (j), (k)] }
//
// After (member m of the new band is member permutation[m] of the old one;
// coincidence flags, AST loop types and isolate dimensions travel with
// their members; marks and every other node stay):
//
//   band [permutable, coincident: 0 1 1] { S[i, j, k] -> [(k), (i), (j)] }
#pragma once

#include <isl/cpp.h>

#include <vector>

namespace atl::poly {

/// The schedule with the members of the band at `position` (pre-order index
/// among band nodes, see collect_bands in tile_bands.h) reordered: the new
/// member m is the old member permutation[m]. Legal only for permutable
/// bands: throws atl::UserError for a non-permutable band of several
/// members, a missing band, a `permutation` that is not a permutation of
/// 0 .. n_member - 1, or a band above an anchored subtree (see replace_band).
/// The identity returns the schedule unchanged.
isl::schedule permute_band(isl::schedule schedule, int position, const std::vector<int> &permutation);

}  // namespace atl::poly
