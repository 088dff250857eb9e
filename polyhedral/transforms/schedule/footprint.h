// Data footprint of one tile of a statement: the box hulls (computed with isl)
// of the array elements its accesses touch over the tile, in bytes.
//
// Example: S[m, n, k] of C[m, n] += A[m, k] * B[k, n] over the tile
// {m < 6, n < 64, k < 128}: C 6x64 + A 6x128 + B 128x64 floats = 37,376 bytes.
#pragma once

#include "polyhedral/scop/scop.h"

#include <vector>

namespace atl::poly {

/// Bytes touched by the tile { x : 0 <= x_d < sizes[d] } of `statement`
/// (intersected with its domain; a size <= 0 means the whole extent of that
/// dimension). Accesses to one array are united before their box hull is
/// taken. -1 when isl finds no fixed-size box (a non-affine or unbounded access).
long tile_footprint_bytes(const Scop &scop, const ScopStatement &statement, const std::vector<long> &sizes);

}  // namespace atl::poly
