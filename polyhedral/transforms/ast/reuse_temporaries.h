// In-place epilogues: a temporary whose only reader is an elementwise
// statement writing another array of the kernel at the same element shares
// that array's storage.
//
// Before (MatMul -> bias -> Gelu in one kernel: three 64 x 3072 arrays):
//
//   kernel k(in x, in w, in b, out g[64, 3072], temp f1_mm[64, 3072], temp f1[64, 3072])
//     f1_mm[i, j] = 0;  f1_mm[i, j] += x[i, k] * w[k, j]
//     f1[i, j] = f1_mm[i, j] + b[j]
//     g[i, j] = gelu(f1[i, j])
//
// After (one array: the product accumulates in g and the epilogue runs in place):
//
//   kernel k(in x, in w, in b, out g[64, 3072])
//     g[i, j] = 0;  g[i, j] += x[i, k] * w[k, j]
//     g[i, j] = g[i, j] + b[j]
//     g[i, j] = gelu(g[i, j])
//
// Temporary T may take the storage of array U when (checked on the SCoP):
// exactly one statement S reads T; S assigns U (no reduction, no read of U)
// and reads T only at the element it writes (its read and write relations
// are equal up to the array); S's write is injective (one instance per
// element) and covers all of U; S is U's only writer; T and U have one
// element type and shape.
// Then the instances of S that touch one element e are one, S(e); every
// write of T[e] comes before S(e) (flow, output and reduction-closure
// dependences, which the schedule keeps); nothing reads T[e] but S(e); and
// whatever reads U[e] does so after S(e). So the location holds T[e] until
// S(e) reads it and U[e] from then on, in any legal schedule. Chains
// (f1_mm -> f1 -> g) share one array; an array takes at most one temporary
// directly (of y = r + c, only r moves into y: both are live until S runs).
#pragma once

#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/scop/scop.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace atl::poly {

/// What reuse_temporaries did.
struct ReuseResult {
  std::vector<std::pair<std::string, std::string>> reused;  ///< temporary -> the array it is stored in
  std::int64_t bytes_saved = 0;                             ///< symbolic extents counted as 1
};

/// Renames every qualifying temporary of `kernel` (role Temporary; built from
/// `scop`) to the array whose storage it takes, and drops it from the kernel's
/// arguments.
ReuseResult reuse_temporaries(const Scop &scop, LKernel &kernel);

}  // namespace atl::poly
